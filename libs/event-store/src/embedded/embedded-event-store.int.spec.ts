import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { runEventStoreContract } from '../event-store.contract.js';
import { createEmbeddedEventStore } from './embedded-event-store.js';

runEventStoreContract('embedded PGlite', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'es-contract-'));
  const embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
  return {
    store: embedded.store,
    close: async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
