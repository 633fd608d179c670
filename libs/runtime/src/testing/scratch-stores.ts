import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { loadConfig } from '#platform';
import { openStores, type Stores } from '../create-infrastructure.js';

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * The service's stores (openStores: the audit layers on the log) on a scratch database of their own:
 * a PostgreSQL database made for them on the test server, or an embedded DATA_DIR in a temporary
 * folder. `remove` drops it, after the stores are stopped.
 */
export const openScratchStores = async (kind: 'embedded' | 'postgres', name: string, logger: Logger): Promise<{ stores: Stores; remove: () => Promise<void> }> => {
  const settings = { SERVICE_SECRET: `${name}-secret`, LOG_LEVEL: 'silent' };
  if (kind === 'embedded') {
    const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
    return { stores: await openStores(loadConfig({ ...settings, DATA_DIR: dataDir }), logger), remove: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const database = `${name}_${Date.now().toString(36)}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${database}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return { stores: await openStores(loadConfig({ ...settings, EVENT_STORE_URL: url.toString() }), logger), remove: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) };
};
