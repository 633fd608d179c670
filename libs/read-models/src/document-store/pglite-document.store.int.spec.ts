import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startEmbeddedDatabase } from '#event-store';
import { documentStoreContract } from './document-store.contract.js';
import { createPostgresDocumentStore } from './postgres-document.store.js';

// The same adapter on the embedded PGlite the service uses by default: one connection in the pool.
documentStoreContract('embedded PGlite', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'rm-pglite-'));
  const database = await startEmbeddedDatabase({ dataDir, logger: pino({ level: 'silent' }) });
  return {
    store: createPostgresDocumentStore({ pool: database.pool, schema: 'read_models' }),
    close: async () => {
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
