import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '#event-store';
import type { TestDatabase } from './postgres.js';

/** The embedded PGlite the service uses without a database server: one connection behind a pg.Pool. */
export const startTestPglite = async (): Promise<TestDatabase> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'messaging-pglite-'));
  const database = await startEmbeddedDatabase({ dataDir });
  return {
    pool: database.pool,
    schema: 'messaging',
    drop: async () => {
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
};
