import type { Redis } from 'ioredis';
import { connectRedis, deleteKeys, uniquePrefix } from '../testing/redis-test-client.js';
import { fingerprint } from './idempotency-key.js';
import { RedisIdempotencyStore, type IdempotentRequest } from './redis-idempotency-store.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const path = '/v1/assessments/a1/invitations';
const body = { candidates: [{ email: 'ann@example.com' }] };
const live: IdempotentRequest = { mode: 'live', fingerprint: fingerprint(path, body) };
const sandbox: IdempotentRequest = { mode: 'sandbox', fingerprint: live.fingerprint };
const otherBody: IdempotentRequest = { mode: 'live', fingerprint: fingerprint(path, { candidates: [{ email: 'bob@example.com' }] }) };
const answer = { status: 200 as const, body: { data: [{ email: 'ann@example.com', status: 'invited' }], meta: { invited: 1 } } };

describe('RedisIdempotencyStore (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisIdempotencyStore;
  const scope = { workspaceId: 'ws_1', key: 'order-42' };

  beforeAll(() => {
    redis = connectRedis();
  });

  beforeEach(() => {
    prefix = uniquePrefix('idempotency');
    store = new RedisIdempotencyStore(redis, { prefix });
  });

  afterEach(async () => {
    await deleteKeys(redis, prefix);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('starts a fresh key with a marker that expires after the lock time', async () => {
    expect(await store.begin(scope, live)).toEqual({ kind: 'started' });
    const ttl = await redis.ttl(`${prefix}{ws_1}:order-42`);
    expect(ttl).toBeGreaterThan(55);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('answers in_progress with the time the first request can be expected to take, not the lock time', async () => {
    await store.begin(scope, live);
    // Nothing completed yet: about twice a typical second, far below the 60 s lock.
    const first = await store.begin(scope, live);
    expect(first).toMatchObject({ kind: 'in_progress' });
    expect(first.kind === 'in_progress' && first.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(first.kind === 'in_progress' && first.retryAfterSeconds).toBeLessThanOrEqual(3);
    // Requests that complete in ~100 ms make the expected wait the minimum, 1 s.
    for (const key of ['fast-1', 'fast-2', 'fast-3']) {
      const quick = { workspaceId: 'ws_1', key };
      await store.begin(quick, live);
      await sleep(100);
      await store.complete(quick, live, answer);
    }
    const again = { workspaceId: 'ws_1', key: 'again' };
    await store.begin(again, live);
    expect(await store.begin(again, live)).toEqual({ kind: 'in_progress', retryAfterSeconds: 1 });
  });

  it('never answers past the expiry of the lock', async () => {
    const shortLock = new RedisIdempotencyStore(redis, { prefix, lockSeconds: 5 });
    const other = { workspaceId: 'ws_1', key: 'short' };
    await redis.set(`${prefix}{ws_1}duration-ms`, '60000');
    await shortLock.begin(other, live);
    await sleep(1200);
    const second = await shortLock.begin(other, live);
    // About 3.8 s of lock are left: rounded up, never the full expected minute.
    expect(second).toMatchObject({ kind: 'in_progress' });
    expect(second.kind === 'in_progress' && second.retryAfterSeconds).toBeGreaterThanOrEqual(3);
    expect(second.kind === 'in_progress' && second.retryAfterSeconds).toBeLessThanOrEqual(4);
  });

  it('answers reused to another body or another mode while the first runs', async () => {
    await store.begin(scope, live);
    expect(await store.begin(scope, otherBody)).toEqual({ kind: 'reused' });
    expect(await store.begin(scope, sandbox)).toEqual({ kind: 'reused' });
  });

  it('replays the stored answer for the same body and mode', async () => {
    await store.begin(scope, live);
    expect(await store.complete(scope, live, answer)).toBe(true);
    expect(await store.begin(scope, live)).toEqual({ kind: 'replay', response: answer });
    expect(await store.begin(scope, live)).toEqual({ kind: 'replay', response: answer });
  });

  it('keeps a completed answer for 24 hours', async () => {
    await store.begin(scope, live);
    await store.complete(scope, live, answer);
    const ttl = await redis.ttl(`${prefix}{ws_1}:order-42`);
    expect(ttl).toBeGreaterThan(86_390);
    expect(ttl).toBeLessThanOrEqual(86_400);
  });

  it('answers reused after completion for another body or another mode', async () => {
    await store.begin(scope, live);
    await store.complete(scope, live, answer);
    expect(await store.begin(scope, otherBody)).toEqual({ kind: 'reused' });
    expect(await store.begin(scope, sandbox)).toEqual({ kind: 'reused' });
    // Neither refusal disturbs the record.
    expect(await store.begin(scope, live)).toEqual({ kind: 'replay', response: answer });
  });

  it('shares keys within a workspace only', async () => {
    await store.begin(scope, live);
    await store.complete(scope, live, answer);
    expect(await store.begin({ workspaceId: 'ws_2', key: 'order-42' }, live)).toEqual({ kind: 'started' });
    expect(await store.begin({ workspaceId: 'ws_1', key: 'order-43' }, live)).toEqual({ kind: 'started' });
    // A colon in a workspace id cannot make two scopes meet.
    await store.begin({ workspaceId: 'a:b', key: 'c' }, live);
    expect(await store.begin({ workspaceId: 'a', key: 'b:c' }, live)).toEqual({ kind: 'started' });
  });

  it('leaves the key unused after a refused request is abandoned', async () => {
    await store.begin(scope, live);
    await store.abandon(scope, live);
    expect(await redis.exists(`${prefix}ws_1:order-42`)).toBe(0);
    expect(await store.begin(scope, otherBody)).toEqual({ kind: 'started' });
    await store.abandon(scope);
    expect(await store.begin(scope, sandbox)).toEqual({ kind: 'started' });
  });

  it('never abandons a completed record or another request\'s marker', async () => {
    await store.begin(scope, live);
    await store.abandon(scope, otherBody);
    expect(await store.begin(scope, live)).toMatchObject({ kind: 'in_progress' });
    await store.complete(scope, live, answer);
    await store.abandon(scope);
    await store.abandon(scope, live);
    expect(await store.begin(scope, live)).toEqual({ kind: 'replay', response: answer });
  });

  it('frees the key when a crashed request never finishes', async () => {
    const shortLock = new RedisIdempotencyStore(redis, { prefix, lockSeconds: 1 });
    await shortLock.begin(scope, live);
    expect(await shortLock.begin(scope, live)).toEqual({ kind: 'in_progress', retryAfterSeconds: 1 });
    await sleep(1100);
    expect(await shortLock.begin(scope, otherBody)).toEqual({ kind: 'started' });
  });

  it('does not let a late completion overwrite a newer request or a completed answer', async () => {
    const shortLock = new RedisIdempotencyStore(redis, { prefix, lockSeconds: 1 });
    await shortLock.begin(scope, live);
    await sleep(1100);
    await shortLock.begin(scope, otherBody);
    expect(await shortLock.complete(scope, live, answer)).toBe(false);
    const otherAnswer = { status: 200 as const, body: { data: [], meta: { invited: 0 } } };
    expect(await shortLock.complete(scope, otherBody, otherAnswer)).toBe(true);
    expect(await shortLock.complete(scope, otherBody, answer)).toBe(false);
    expect(await shortLock.begin(scope, otherBody)).toEqual({ kind: 'replay', response: otherAnswer });
  });

  it('stores the answer even when the lock expired with nobody else on the key', async () => {
    const shortLock = new RedisIdempotencyStore(redis, { prefix, lockSeconds: 1 });
    await shortLock.begin(scope, live);
    await sleep(1100);
    expect(await shortLock.complete(scope, live, answer)).toBe(true);
    expect(await shortLock.begin(scope, live)).toEqual({ kind: 'replay', response: answer });
  });

  it('starts exactly one of 20 concurrent requests with the same key', async () => {
    const clients = [connectRedis(), connectRedis(), connectRedis(), connectRedis()];
    try {
      const stores = clients.map((client) => new RedisIdempotencyStore(client, { prefix }));
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, index) => stores[index % stores.length]?.begin(scope, live)),
      );
      expect(outcomes.filter((outcome) => outcome?.kind === 'started')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome?.kind === 'in_progress')).toHaveLength(19);
    } finally {
      await Promise.all(clients.map((client) => client.quit()));
    }
  });

  it('starts exactly one of 20 concurrent requests with different bodies, refusing the rest as reused', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        store.begin(scope, { mode: 'live', fingerprint: fingerprint(path, { candidates: [{ email: `p${index}@x.co` }] }) }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.kind === 'started')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'reused')).toHaveLength(19);
  });

  it('refuses invalid options', () => {
    expect(() => new RedisIdempotencyStore(redis, { ttlSeconds: 0 })).toThrow();
    expect(() => new RedisIdempotencyStore(redis, { lockSeconds: 0.5 })).toThrow();
    expect(() => new RedisIdempotencyStore(redis, { prefix: '{idem}:' })).toThrow(/brace/);
  });

  describe('records written by a release before hash tags (idem:<workspace>:<key>)', () => {
    const oldKey = (): string => `${prefix}ws_1:order-42`;
    const writtenBefore = async (state: 'completed' | 'in_progress'): Promise<void> => {
      // As that release's COMPLETE (or BEGIN) left it.
      const fields = state === 'completed' ? ['status', '200', 'body', JSON.stringify(answer.body)] : [];
      await redis.hset(oldKey(), 'state', state, 'fingerprint', live.fingerprint, 'mode', 'live', 'started', String(Date.now() - 1000), ...fields);
      await redis.expire(oldKey(), state === 'completed' ? 86_400 : 60);
    };

    it('replays it, refuses another body as reused, and writes nothing under the tagged key', async () => {
      await writtenBefore('completed');
      expect(await store.begin(scope, live)).toEqual({ kind: 'replay', response: answer });
      expect(await store.begin(scope, otherBody)).toEqual({ kind: 'reused' });
      expect(await store.begin(scope, sandbox)).toEqual({ kind: 'reused' });
      expect(await redis.exists(`${prefix}{ws_1}:order-42`)).toBe(0);
    });

    it('answers in_progress while a process of that release still runs the request', async () => {
      await writtenBefore('in_progress');
      const answered = await store.begin(scope, live);
      expect(answered).toMatchObject({ kind: 'in_progress' });
      expect(answered.kind === 'in_progress' && answered.retryAfterSeconds).toBeLessThanOrEqual(3);
    });

    it('forgets it with the tagged one, after which the request runs again', async () => {
      await writtenBefore('completed');
      await store.forget(scope, live);
      expect(await redis.exists(oldKey())).toBe(0);
      expect(await store.begin(scope, live)).toEqual({ kind: 'started' });
    });

    it('stops looking for it once a record lifetime has passed since the process started', async () => {
      const shortLived = new RedisIdempotencyStore(redis, { prefix, ttlSeconds: 1 });
      await writtenBefore('completed');
      expect(await shortLived.begin(scope, live)).toEqual({ kind: 'replay', response: answer });
      await sleep(1100);
      expect(await shortLived.begin(scope, live)).toEqual({ kind: 'started' });
    });
  });
});
