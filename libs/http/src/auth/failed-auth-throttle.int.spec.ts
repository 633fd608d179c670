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

  it('refuses an address past its failures with 429 and Retry-After, other addresses untouched, until the window ends', async () => {
    const throttle = new FailedAuthThrottle(redis, { prefix, limit: 3, windowMs: 1500 });
    for (let failure = 0; failure < 3; failure += 1) {
      await expect(throttle.assertAllowed('10.0.0.1')).resolves.toBeUndefined();
      await throttle.recordFailure('10.0.0.1');
    }

    const refused = await throttle.assertAllowed('10.0.0.1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited', headers: { 'Retry-After': expect.stringMatching(/^[12]$/) } });
    await expect(throttle.assertAllowed('10.0.0.2')).resolves.toBeUndefined();

    await sleep(1600);
    await expect(throttle.assertAllowed('10.0.0.1')).resolves.toBeUndefined();
  });

  it('lets an address far from its limit through for a second without Redis; its own failures end that at once', async () => {
    const throttle = new FailedAuthThrottle(redis, { prefix, limit: 4, windowMs: 10_000 });
    // Another API process, sharing Redis: its failures reach this one's answer within a second.
    const other = new FailedAuthThrottle(redis, { prefix, limit: 4, windowMs: 10_000 });
    await expect(throttle.assertAllowed('10.0.0.3')).resolves.toBeUndefined();
    for (let failure = 0; failure < 4; failure += 1) await other.recordFailure('10.0.0.3');
    await expect(throttle.assertAllowed('10.0.0.3')).resolves.toBeUndefined();
    await expect(other.assertAllowed('10.0.0.3')).rejects.toMatchObject({ status: 429 });
    await sleep(1_100);
    await expect(throttle.assertAllowed('10.0.0.3')).rejects.toMatchObject({ status: 429 });

    // This process's own failures: refused as soon as the limit is reached, no second of grace.
    await expect(throttle.assertAllowed('10.0.0.4')).resolves.toBeUndefined();
    for (let failure = 0; failure < 4; failure += 1) await throttle.recordFailure('10.0.0.4');
    await expect(throttle.assertAllowed('10.0.0.4')).rejects.toMatchObject({ status: 429 });
  });
});
