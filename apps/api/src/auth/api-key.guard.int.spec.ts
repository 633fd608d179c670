import type { ExecutionContext } from '@nestjs/common';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { FailedAuthThrottle } from '#http';
import { connectRedis, deleteKeys, uniquePrefix } from '#http/testing/redis-test-client.js';
import { hashSecret } from '#platform';
import { ApiKeyCache, apiKeysProjection } from '#read-models';
import { createPostgresDocumentStore } from '#read-models/document-store/postgres-document.store.js';
import { tableName } from '#read-models/document-store/postgres-sql.js';
import type { DocumentStore } from '#read-models';
import { TEST_DATABASE_URL, openTestDatabase, type TestDatabase } from '#read-models/test-support/postgres.js';
import { ApiKeyGuard } from './api-key.guard.js';

const KEY = 'live_guardtestkey0000000000';
const SECRET = 'the-right-secret';
const ADDRESS = '203.0.113.7';

/** What the guard reads of a request: its Authorization header and its address. */
const contextOf = (authorization: string, ip = ADDRESS): ExecutionContext => {
  const request = { headers: { authorization }, ip };
  return { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
};

const outcome = (guard: ApiKeyGuard, authorization: string): Promise<number> =>
  guard.canActivate(contextOf(authorization)).then(() => 200, (error: { status?: number }) => error.status ?? 500);

/**
 * ApiKeyGuard on the real stores: the api-keys read model in PostgreSQL, read through a pool that
 * counts the statements on its table, and the failed-authentication counts in Redis.
 */
describe('ApiKeyGuard (PostgreSQL server, Redis)', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let store: DocumentStore;
  let cache: ApiKeyCache;
  let redis: Redis;
  let prefix: string;
  let lookups = 0;

  beforeAll(async () => {
    database = await openTestDatabase('api_key_guard');
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 3 });
    const counting = Object.create(pool) as pg.Pool;
    counting.query = ((...args: Parameters<pg.Pool['query']>) => {
      const [config] = args;
      const text = typeof config === 'string' ? config : (config as { text: string }).text;
      if (text.includes(tableName(apiKeysProjection.name)) && /^\s*select/i.test(text)) lookups += 1;
      return (pool.query as (...given: unknown[]) => unknown)(...args);
    }) as pg.Pool['query'];
    const writer = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
    await writer.prepare([apiKeysProjection]);
    await writer.applyBatch([apiKeysProjection.name], [{
      collection: apiKeysProjection.name, id: 'k1',
      doc: { id: 'k1', workspaceId: 'w1', mode: 'live', key: KEY, secretHash: hashSecret(SECRET), issuedAt: '2026-10-01T09:00:00.000Z' },
    }], 1n);
    await writer.close();
    store = createPostgresDocumentStore({ pool: counting, schema: database.schema, deployment: 'multi-process' });
    await store.prepare([apiKeysProjection]);
    cache = new ApiKeyCache(store);
    redis = connectRedis();
  });
  beforeEach(async () => {
    prefix = uniquePrefix('guard-authfail');
    // Until the cache's LISTEN connection is up nothing is held; from then on the key is held.
    const guard = new ApiKeyGuard(cache, new FailedAuthThrottle(redis, { prefix }));
    for (let waited = 0; ; waited += 20) {
      await outcome(guard, `Bearer ${KEY}:${SECRET}`);
      lookups = 0;
      if ((await outcome(guard, `Bearer ${KEY}:${SECRET}`)) === 200 && lookups === 0) break;
      if (waited > 5_000) throw new Error('the key was never held');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
  });
  afterAll(async () => {
    cache.close();
    await store.close();
    await pool.end();
    await database.drop();
    await redis.quit();
  });

  it('serves a valid key from an address past its failure limit, and answers that address\'s wrong or unknown keys 429', async () => {
    const guard = new ApiKeyGuard(cache, new FailedAuthThrottle(redis, { prefix, limit: 3 }));
    const failures: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) failures.push(await outcome(guard, `Bearer ${KEY}:wrong-${attempt}`));
    expect(failures).toEqual([401, 401, 401, 429, 429]);

    // Integrators behind the same NAT or proxy as the guesser keep working.
    expect(await outcome(guard, `Bearer ${KEY}:${SECRET}`)).toBe(200);
    expect(await outcome(guard, `Basic ${Buffer.from(`${KEY}:${SECRET}`).toString('base64')}`)).toBe(200);
    expect(await outcome(guard, `Bearer ${KEY}:still-wrong`)).toBe(429);
    expect(await outcome(guard, `Bearer live_nosuchkey000000000000:${SECRET}`)).toBe(429);
    expect(await outcome(guard, 'Bearer malformed')).toBe(429);
  });

  it('costs a wrong secret on a held key the one store read an unknown key costs; a held key with its secret none', async () => {
    const guard = new ApiKeyGuard(cache, new FailedAuthThrottle(redis, { prefix }));
    const readsFor = async (authorization: string, status: number): Promise<number[]> => {
      const reads: number[] = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        lookups = 0;
        expect(await outcome(guard, authorization)).toBe(status);
        reads.push(lookups);
      }
      return reads;
    };

    expect({
      wrongSecretOnRealKey: await readsFor(`Bearer ${KEY}:not-the-secret`, 401),
      unknownKey: await readsFor(`Bearer live_nosuchkey000000000000:not-the-secret`, 401),
      rightSecret: await readsFor(`Bearer ${KEY}:${SECRET}`, 200),
    }).toEqual({ wrongSecretOnRealKey: [1, 1, 1], unknownKey: [1, 1, 1], rightSecret: [0, 0, 0] });
  });
});
