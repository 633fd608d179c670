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
});
