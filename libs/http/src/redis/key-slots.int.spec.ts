import type { Redis } from 'ioredis';
import { keySlot, watchMultiKeyCommands } from '#platform/testing/key-slots.js';
import { FailedAuthThrottle } from '../auth/failed-auth-throttle.js';
import { RedisIdempotencyStore, type IdempotentRequest } from '../idempotency/redis-idempotency-store.js';
import { RedisRateLimiter } from '../rate-limit/redis-rate-limiter.js';
import { REDIS_URL, connectRedis, deleteKeys, uniquePrefix } from '../testing/redis-test-client.js';

/*
 * Redis Cluster runs a script or a MULTI only when all the keys it declares hash to one slot
 * (CROSSSLOT otherwise). Every script and MULTI of the request path is run here against the real
 * server, the keys each declared are read back from MONITOR, and their slots compared.
 */
describe('Redis keys of the request path on a Redis Cluster (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  const request: IdempotentRequest = { mode: 'live', fingerprint: 'f1' };

  beforeAll(() => {
    redis = connectRedis();
  });
  beforeEach(() => {
    prefix = uniquePrefix('slots');
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('every script and MULTI declares keys of one slot, and workspaces and API keys spread over slots', async () => {
    const watch = await watchMultiKeyCommands(REDIS_URL, prefix);
    const idempotency = new RedisIdempotencyStore(redis, { prefix: `${prefix}idem:` });
    const limiter = new RedisRateLimiter(redis, { prefix: `${prefix}ratelimit:` });
    const throttle = new FailedAuthThrottle(redis, { prefix: `${prefix}authfail:` });
    for (const workspaceId of ['ws_1', 'ws_2', 'ws_3', 'ws_4']) {
      for (const key of ['a', 'b']) {
        const scope = { workspaceId, key };
        await idempotency.begin(scope, request);
        await idempotency.begin(scope, request);
        await idempotency.complete(scope, request, { status: 200, body: { ok: true } });
        await idempotency.forget(scope, request);
        await idempotency.begin(scope, request);
        await idempotency.abandon(scope, request);
      }
      await limiter.consumeUnlessRetired(`key_${workspaceId}`, 'pk_1');
      await limiter.retire(`key_${workspaceId}`, 'pk_0');
    }
    await throttle.refusal('192.0.2.1');
    await watch.stop();

    const commands = new Set(watch.seen.map(({ command }) => command));
    expect([...commands].sort()).toEqual(expect.arrayContaining(['multi']));
    expect(commands.has('evalsha') || commands.has('eval')).toBe(true);
    // begin (twice), complete, forget (tagged and old key), begin, abandon per key; consume and retire per API key; one failure.
    expect(watch.seen.length).toBe(4 * 2 * 7 + 4 * 2 + 1);
    for (const { command, keys } of watch.seen) {
      expect({ command, keys, slots: new Set(keys.map(keySlot)).size }).toEqual({ command, keys, slots: 1 });
    }
    const multiKey = watch.seen.filter(({ keys }) => keys.length > 1);
    expect(multiKey.length).toBeGreaterThan(0);
    // Not one hot slot: each workspace's records, and each API key's window, have a slot of their own.
    const recordSlots = new Set(multiKey.filter(({ keys }) => keys[0]?.includes('idem:')).map(({ keys }) => keySlot(keys[0] ?? '')));
    const windowSlots = new Set(multiKey.filter(({ keys }) => keys[0]?.includes('ratelimit:')).map(({ keys }) => keySlot(keys[0] ?? '')));
    expect(recordSlots.size).toBe(4);
    expect(windowSlots.size).toBe(4);
  });
});
