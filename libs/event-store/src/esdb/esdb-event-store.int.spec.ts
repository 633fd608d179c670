import { randomBytes } from 'node:crypto';
import { describe } from '@jest/globals';
import { runEventStoreContract } from '../testing/event-store.contract.js';
import { IntegrityEventStore } from '../integrity/integrity-event-store.js';
import { createEsdbEventStore } from './esdb-event-store.js';

const url = process.env.EVENTSTOREDB_URL ?? '';
// Without a server the contract is reported as skipped, never as passed.
const describeWithServer = url === '' ? describe.skip : describe;
if (url === '') {
  process.stderr.write('EventStoreDB contract suite skipped: set EVENTSTOREDB_URL (e.g. esdb://127.0.0.1:2113?tls=false) to run it\n');
}

describeWithServer('EventStoreDB adapter (EVENTSTOREDB_URL)', () => {
  runEventStoreContract(
    'EventStoreDB',
    async () => {
      const store = await createEsdbEventStore({ connectionString: url });
      return { store, close: () => store.close() };
    },
    { atomicMultiStreamAppend: false },
  );
  // The same contract with every event hashed and chained on the way in (the integrity stamp rides in the metadata).
  runEventStoreContract(
    'EventStoreDB behind the integrity layer',
    async () => {
      const store = new IntegrityEventStore(await createEsdbEventStore({ connectionString: url }), randomBytes(32));
      return { store, close: () => store.close() };
    },
    { atomicMultiStreamAppend: false },
  );
});
