import type { Redis } from 'ioredis';
import { prefixPattern } from '#platform';

const SCAN_COUNT = 500;

/**
 * Removes every copy of `needle` under the key prefixes: strings and hashes (idempotency records, job payloads)
 * are deleted, stream entries and list/set members removed. A slow scan, once per erased person, off requests.
 * Copies dated (a record's `started`, a job's `timestamp`, a stream entry's id) at or after `madeBefore` (epoch ms)
 * stay: they are about whoever was invited at the address since, and a re-invitation's idempotency record
 * going with the erasure would run the same request twice.
 */
export const scrubRedis = async (redis: Redis, prefixes: readonly string[], needle: string, madeBefore = Number.POSITIVE_INFINITY): Promise<number> => {
  let removed = 0;
  for (const prefix of prefixes) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', prefixPattern(prefix), 'COUNT', SCAN_COUNT);
      cursor = next;
      for (const key of keys) removed += await scrubKey(redis, key, needle, madeBefore);
    } while (cursor !== '0');
  }
  return removed;
};

/** When a hash says it was made (ms): an idempotency record's `started`, a BullMQ job's `timestamp`. */
const madeAt = (hash: Record<string, string>): number | null => {
  const made = Number(hash['started'] ?? hash['timestamp']);
  return Number.isFinite(made) && made > 0 ? made : null;
};

const scrubKey = async (redis: Redis, key: string, needle: string, madeBefore: number): Promise<number> => {
  const type = await redis.type(key);
  if (type === 'string') {
    const value = await redis.get(key);
    return value?.includes(needle) ? redis.del(key) : 0;
  }
  if (type === 'hash') {
    const hash = await redis.hgetall(key);
    if (!Object.values(hash).some((value) => value.includes(needle))) return 0;
    const made = madeAt(hash);
    if (made !== null && made >= madeBefore) return 0;
    await forgetJobId(redis, key);
    return redis.del(key, `${key}:logs`);
  }
  if (type === 'stream') {
    const entries = await redis.xrange(key, '-', '+');
    const ids = entries.filter(([id, fields]) => Number(id.split('-')[0]) < madeBefore && fields.some((field) => field.includes(needle))).map(([id]) => id);
    return ids.length === 0 ? 0 : redis.xdel(key, ...ids);
  }
  if (type === 'list') {
    const members = (await redis.lrange(key, 0, -1)).filter((member) => member.includes(needle));
    for (const member of members) await redis.lrem(key, 0, member);
    return members.length;
  }
  if (type === 'zset' || type === 'set') {
    const members = (type === 'zset' ? await redis.zrange(key, '0', '-1') : await redis.smembers(key)).filter((member) => member.includes(needle));
    if (members.length === 0) return 0;
    return type === 'zset' ? redis.zrem(key, ...members) : redis.srem(key, ...members);
  }
  return 0;
};

const JOB_STATES = ['completed', 'failed', 'delayed', 'prioritized', 'wait', 'paused'] as const;

/** A BullMQ job hash is `<prefix>:<queue>:<jobId>`: its id leaves the state lists with it, so no list points at nothing. */
const forgetJobId = async (redis: Redis, key: string): Promise<void> => {
  const cut = key.lastIndexOf(':');
  if (cut <= 0) return;
  const queueKey = key.slice(0, cut);
  const jobId = key.slice(cut + 1);
  for (const state of JOB_STATES) {
    const stateKey = `${queueKey}:${state}`;
    const type = await redis.type(stateKey);
    if (type === 'zset') await redis.zrem(stateKey, jobId);
    else if (type === 'list') await redis.lrem(stateKey, 0, jobId);
  }
};
