import { test } from '@jest/globals';
import { runEventStoreContract } from '../event-store.contract.js';
import { createEsdbEventStore } from './esdb-event-store.js';

const url = process.env.EVENTSTOREDB_URL;

if (url === undefined || url === '') {
  // No EventStoreDB server runs here: one passing test states that the suite did not run.
  test('EventStoreDB contract suite skipped: no EVENTSTOREDB_URL', () => {
    process.stderr.write('EventStoreDB contract suite skipped: set EVENTSTOREDB_URL (e.g. esdb://127.0.0.1:2113?tls=false) to run it\n');
  });
} else {
  runEventStoreContract(
    'EventStoreDB',
    async () => {
      const store = await createEsdbEventStore({ connectionString: url });
      return { store, close: () => store.close() };
    },
    { atomicMultiStreamAppend: false },
  );
}
