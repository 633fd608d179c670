import pg from 'pg';
import { createPostgresDocumentStore } from '../document-store/postgres-document.store.js';
import { tableName } from '../document-store/postgres-sql.js';
import type { DocumentStore } from '../shared/document-store.port.js';
import { TEST_DATABASE_URL, openTestDatabase, uniqueSchema, type TestDatabase } from '../test-support/postgres.js';
import { ApiKeyCache } from './api-key-cache.js';
import { apiKeysProjection, type ApiKeyDocument } from './api-keys.projection.js';

const key = (secretHash: string, publicKey: string): ApiKeyDocument =>
  ({ id: 'k1', workspaceId: 'w1', mode: 'live', key: publicKey, secretHash, issuedAt: '2026-10-01T09:00:00.000Z' });

const eventually = async (check: () => Promise<boolean>, what: string): Promise<void> => {
  for (let waited = 0; waited < 5_000; waited += 20) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/**
 * Two API processes on one PostgreSQL database, as two stores with pools of their own: one
 * writes the api-keys read model (as the projection does), the other serves requests from its cache.
 */
describe('ApiKeyCache across processes (PostgreSQL server)', () => {
  let database: TestDatabase;
  let readerPool: pg.Pool;
  let writer: DocumentStore;
  let reader: DocumentStore;
  let cache: ApiKeyCache;
  const applicationName = uniqueSchema('api_key_cache');
  const table = () => `"${database.schema}"."${tableName(apiKeysProjection.name)}"`;
  /** Changes the stored key behind every writer's back: no trigger fires, so only a cache that is not used sees it. */
  const silentlySetKey = async (publicKey: string): Promise<void> => {
    const client = await database.pool.connect();
    try {
      await client.query('SET session_replication_role = replica');
      await client.query(`UPDATE ${table()} SET doc = jsonb_set(doc, '{key}', to_jsonb($1::text))`, [publicKey]);
      await client.query('SET session_replication_role = DEFAULT');
    } finally {
      client.release();
    }
  };

  beforeAll(async () => {
    database = await openTestDatabase('rm_key_cache');
    readerPool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 3, application_name: applicationName });
    writer = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
    reader = createPostgresDocumentStore({ pool: readerPool, schema: database.schema, deployment: 'multi-process' });
    await writer.prepare([apiKeysProjection]);
    await reader.prepare([apiKeysProjection]);
    await writer.applyBatch([apiKeysProjection.name], [{ collection: 'api-keys', id: 'k1', doc: key('h1', 'live-old') }], 1n);
    cache = new ApiKeyCache(reader);
  });
  afterAll(async () => {
    cache.close();
    await reader.close();
    await writer.close();
    await readerPool.end();
    await database.drop();
  });

  it('answers from memory once a key was read, and forgets it when another process regenerates it', async () => {
    // The first lookup may come before the LISTEN connection is up: it goes to the store then.
    await eventually(async () => (await cache.find('live-old'))?.secretHash === 'h1' && (await silentlySetKey('live-old'), true), 'the first lookup');
    await eventually(async () => {
      await cache.find('live-old');
      await silentlySetKey('changed-silently');
      return (await cache.find('live-old')) !== null;
    }, 'a cached answer');
    // Nothing announced the silent change, so the cache still answers from memory.
    expect(await cache.find('live-old')).toMatchObject({ secretHash: 'h1' });

    await writer.applyBatch([apiKeysProjection.name], [{ collection: 'api-keys', id: 'k1', doc: key('h2', 'live-new') }], 2n);
    await eventually(async () => (await cache.find('live-old')) === null, 'the old key to be refused');
    expect(await cache.find('live-new')).toMatchObject({ secretHash: 'h2' });
  });

  it('trusts no cached key while its LISTEN connection is down', async () => {
    expect(await cache.find('live-new')).toMatchObject({ secretHash: 'h2' });
    await database.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
      [applicationName],
    );
    // While it reconnects (or as soon as it is back, having forgotten everything) every answer is the store's.
    await silentlySetKey('gone');
    expect(await cache.find('live-new')).toBeNull();
    await silentlySetKey('live-new');
    await eventually(async () => (await cache.find('live-new')) !== null, 'the key to be found again');
  });

  it('looks a key up once for the requests that ask for it together', async () => {
    let lookups = 0;
    const counting = Object.create(readerPool) as pg.Pool;
    counting.query = ((...args: Parameters<pg.Pool['query']>) => {
      const [config] = args;
      const text = typeof config === 'string' ? config : (config as { text: string }).text;
      if (text.includes(tableName(apiKeysProjection.name))) lookups += 1;
      return (readerPool.query as (...given: unknown[]) => unknown)(...args);
    }) as pg.Pool['query'];
    const store = createPostgresDocumentStore({ pool: counting, schema: database.schema, deployment: 'multi-process' });
    const burstCache = new ApiKeyCache(store);
    try {
      // Until its LISTEN connection is up every answer is the store's; then one lookup serves the burst.
      await eventually(async () => {
        burstCache.invalidate();
        lookups = 0;
        const answers = await Promise.all(Array.from({ length: 16 }, () => burstCache.find('live-new')));
        return answers.every((answer) => answer?.secretHash === 'h2') && lookups === 1;
      }, 'one lookup for 16 concurrent requests');
      // Held now: no lookup at all.
      lookups = 0;
      await Promise.all(Array.from({ length: 16 }, () => burstCache.find('live-new')));
      expect(lookups).toBe(0);
    } finally {
      burstCache.close();
      await store.close();
    }
  });

  it('rereads a held key from the store when asked, dropping it once the store no longer has it', async () => {
    await eventually(async () => (await cache.find('live-new')) !== null && cache.held('live-new') !== undefined, 'the key to be held');
    await silentlySetKey('moved-silently');
    expect(cache.held('live-new')).toMatchObject({ secretHash: 'h2' });
    expect(await cache.reread('live-new')).toBeNull();
    expect(cache.held('live-new')).toBeUndefined();
    await silentlySetKey('live-new');
    expect(await cache.reread('live-new')).toMatchObject({ secretHash: 'h2' });
    expect(cache.held('live-new')).toMatchObject({ secretHash: 'h2' });
  });
});
