import type { Redis } from 'ioredis';
import { connectRedis, deleteKeys, uniquePrefix } from '../testing/redis-test-client.js';
import { RedisRateLimiter, rateLimitHeaders } from './redis-rate-limiter.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('RedisRateLimiter (real Redis)', () => {
  let redis: Redis;
  let prefix: string;

  beforeAll(() => {
    redis = connectRedis();
  });

  beforeEach(() => {
    prefix = uniquePrefix('rate-limit');
  });

  afterEach(async () => {
    await deleteKeys(redis, prefix);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('answers remaining 119 on the first request of a fresh key', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix });
    expect(await limiter.consume('key_1')).toEqual({ allowed: true, limit: 120, remaining: 119, retryAfterSeconds: null });
  });

  it('allows 120 requests, then refuses with remaining 0 and a Retry-After of at least 1', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix });
    const remaining: number[] = [];
    for (let index = 0; index < 120; index += 1) {
      const decision = await limiter.consume('key_1');
      expect(decision.allowed).toBe(true);
      remaining.push(decision.remaining);
    }
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, index) => 119 - index));

    const refused = await limiter.consume('key_1');
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(refused.limit).toBe(120);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(rateLimitHeaders(refused)).toEqual({
      'X-RateLimit-Limit': '120',
      'X-RateLimit-Remaining': '0',
      'Retry-After': String(refused.retryAfterSeconds),
    });
  });

  it('uses no place for a refused request', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix, limit: 3 });
    for (let index = 0; index < 3; index += 1) await limiter.consume('key_1');
    for (let index = 0; index < 5; index += 1) expect((await limiter.consume('key_1')).allowed).toBe(false);
    expect(await redis.zcard(`${prefix}{key_1}`)).toBe(3);
  });

  it('refuses a retired public key without taking a place, and lets the key that replaced it through', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix, limit: 2 });
    expect(await limiter.consumeUnlessRetired('key_1', 'live-old')).toMatchObject({ allowed: true, remaining: 1 });
    await limiter.retire('key_1', 'live-old');
    expect(await limiter.consumeUnlessRetired('key_1', 'live-old')).toBeNull();
    expect(await redis.zcard(`${prefix}{key_1}`)).toBe(1);
    expect(await limiter.consumeUnlessRetired('key_1', 'live-new')).toMatchObject({ allowed: true, remaining: 0 });
    await limiter.retire('key_1', 'live-new');
    expect(await limiter.consumeUnlessRetired('key_1', 'live-new')).toBeNull();
    expect(await limiter.consumeUnlessRetired('key_2', 'live-old')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await redis.pttl(`${prefix}{key_1}:retired`)).toBeGreaterThan(23 * 60 * 60 * 1000);
  });

  it('keeps separate keys independent', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix, limit: 2 });
    await limiter.consume('key_a');
    await limiter.consume('key_a');
    expect((await limiter.consume('key_a')).allowed).toBe(false);
    expect(await limiter.consume('key_b')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('allows exactly the limit among 200 concurrent requests from several processes', async () => {
    const clients = [connectRedis(), connectRedis(), connectRedis(), connectRedis()];
    try {
      const limiters = clients.map((client) => new RedisRateLimiter(client, { prefix }));
      const decisions = await Promise.all(
        Array.from({ length: 200 }, (_, index) => limiters[index % limiters.length]?.consume('key_1')),
      );
      const allowed = decisions.filter((decision) => decision?.allowed);
      expect(allowed).toHaveLength(120);
      expect(new Set(allowed.map((decision) => decision?.remaining)).size).toBe(120);
      expect(decisions.filter((decision) => decision?.allowed === false)).toHaveLength(80);
      expect(await redis.zcard(`${prefix}{key_1}`)).toBe(120);
    } finally {
      await Promise.all(clients.map((client) => client.quit()));
    }
  });

  it('frees places once the window has passed', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix, limit: 3, windowMs: 1000 });
    for (let index = 0; index < 3; index += 1) expect((await limiter.consume('key_1')).allowed).toBe(true);
    const refused = await limiter.consume('key_1');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });

    await sleep(1100);
    expect(await limiter.consume('key_1')).toMatchObject({ allowed: true, remaining: 2, retryAfterSeconds: null });
  });

  it('slides: a place frees when the oldest request leaves the window, not all at once', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix, limit: 2, windowMs: 1500 });
    await limiter.consume('key_1');
    await sleep(800);
    await limiter.consume('key_1');
    expect((await limiter.consume('key_1')).allowed).toBe(false);
    await sleep(800);
    // The first request has left the window, the second has not.
    expect(await limiter.consume('key_1')).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume('key_1')).allowed).toBe(false);
  });

  it('lets its keys expire with the window so idle API keys leave nothing behind', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix, windowMs: 60_000 });
    await limiter.consume('key_1');
    const ttl = await redis.pttl(`${prefix}{key_1}`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redis.pttl(`${prefix}{key_1}:seq`)).toBeGreaterThan(55_000);
  });

  it('refuses invalid options', () => {
    expect(() => new RedisRateLimiter(redis, { limit: 0 })).toThrow();
    expect(() => new RedisRateLimiter(redis, { windowMs: 1.5 })).toThrow();
  });
});
