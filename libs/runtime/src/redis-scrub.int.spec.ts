import { Redis } from 'ioredis';
import { REDIS_URL } from '#messaging/test-support/redis.js';
import { scrubRedis } from './redis-scrub.js';

/** The erasure's scrub of Redis, on a real Redis, under a prefix of its own. */
describe('scrubRedis', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = `scrub-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}:`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('removes every copy of the address made before the deletion, and leaves those made after it for whoever holds the address now', async () => {
    const deletion = 1_800_000_000_000;
    const address = 'gone@example.com';
    const body = JSON.stringify({ data: [{ email: address }] });
    await redis.hset(`${prefix}idem:before`, 'state', 'completed', 'body', body, 'started', String(deletion - 5_000));
    await redis.hset(`${prefix}idem:after`, 'state', 'completed', 'body', body, 'started', String(deletion + 5_000));
    // Records from before `started` was kept say nothing of when: they go.
    await redis.hset(`${prefix}idem:undated`, 'state', 'completed', 'body', body);
    await redis.hset(`${prefix}idem:other`, 'state', 'completed', 'body', '{"data":[{"email":"kept@example.com"}]}', 'started', String(deletion - 5_000));
    await redis.hset(`${prefix}email:1`, 'data', JSON.stringify({ to: address }), 'timestamp', String(deletion - 1));
    await redis.hset(`${prefix}email:2`, 'data', JSON.stringify({ to: address }), 'timestamp', String(deletion + 1));
    await redis.xadd(`${prefix}email:events`, `${deletion - 10}-0`, 'data', address);
    await redis.xadd(`${prefix}email:events`, `${deletion + 10}-0`, 'data', address);
    await redis.set(`${prefix}plain`, `to ${address}`);

    expect(await scrubRedis(redis, [prefix], address, deletion)).toBe(5);
    expect((await redis.keys(`${prefix}*`)).sort()).toStrictEqual([`${prefix}email:2`, `${prefix}email:events`, `${prefix}idem:after`, `${prefix}idem:other`].sort());
    expect((await redis.xrange(`${prefix}email:events`, '-', '+')).map(([id]) => id)).toStrictEqual([`${deletion + 10}-0`]);
    // Without a time, every copy goes.
    expect(await scrubRedis(redis, [prefix], address)).toBe(3);
    expect((await redis.keys(`${prefix}*`)).sort()).toStrictEqual([`${prefix}email:events`, `${prefix}idem:other`].sort());
  });
});
