import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A BullMQ prefix no other test (or concurrent run) uses. */
export const uniquePrefix = (suite: string): string => `test-messaging-${suite}-${randomUUID()}`;

/** BullMQ workers need `maxRetriesPerRequest: null`. */
export const connectRedis = (): Redis => new Redis(REDIS_URL, { maxRetriesPerRequest: null });

/** Removes every key under the prefix; SCAN rather than KEYS so a busy server is not blocked. */
export const deleteKeys = async (redis: Redis, prefix: string): Promise<void> => {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
};
