import type { Redis } from 'ioredis';
import { ApiError } from '../errors/api-error.js';
import { connectRedis, deleteKeys, uniquePrefix } from '../testing/redis-test-client.js';
import { FailedAuthThrottle } from './failed-auth-throttle.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('FailedAuthThrottle (real Redis)', () => {
  let redis: Redis;
  let prefix: string;

  beforeAll(() => {
    redis = connectRedis();
  });
  beforeEach(() => {
    prefix = uniquePrefix('authfail');
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('answers an address\'s failures 401 up to its limit, then 429 with Retry-After until the window ends; other addresses untouched', async () => {
    const throttle = new FailedAuthThrottle(redis, { prefix, limit: 3, windowMs: 1500 });
    for (let failure = 0; failure < 3; failure += 1) {
      await expect(throttle.refusal('10.0.0.1')).resolves.toMatchObject({ status: 401, code: 'unauthorized' });
    }

    const refused = await throttle.refusal('10.0.0.1');
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    // Retry-After and nothing else: the X-RateLimit-* headers describe a key's limit, and no key was authenticated.
    expect((refused as ApiError).headers).toEqual({ 'Retry-After': expect.stringMatching(/^[12]$/) });
    await expect(throttle.refusal('10.0.0.2')).resolves.toMatchObject({ status: 401 });

    await sleep(1600);
    await expect(throttle.refusal('10.0.0.1')).resolves.toMatchObject({ status: 401 });
  });

  it('counts the failures every API process sees for an address together', async () => {
    const throttle = new FailedAuthThrottle(redis, { prefix, limit: 4, windowMs: 10_000 });
    // Another API process, sharing Redis.
    const other = new FailedAuthThrottle(redis, { prefix, limit: 4, windowMs: 10_000 });
    for (let failure = 0; failure < 4; failure += 1) await (failure % 2 === 0 ? throttle : other).refusal('10.0.0.3');
    await expect(throttle.refusal('10.0.0.3')).resolves.toMatchObject({ status: 429 });
    await expect(other.refusal('10.0.0.3')).resolves.toMatchObject({ status: 429 });
  });

  it('answers 401 without counting while Redis cannot answer', async () => {
    const broken = connectRedis();
    await broken.quit();
    const throttle = new FailedAuthThrottle(broken, { prefix, limit: 1, windowMs: 10_000 });
    for (let failure = 0; failure < 3; failure += 1) await expect(throttle.refusal('10.0.0.5')).resolves.toMatchObject({ status: 401 });
  });
});
