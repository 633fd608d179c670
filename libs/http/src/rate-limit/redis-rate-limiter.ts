import type { Redis } from 'ioredis';
import { reportRefusal } from '#platform/instrumentation/channels.js';
import { LuaScript, replyArray, replyInteger } from '../redis/lua-script.js';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number | null;
}

/*
 * KEYS: the ZSET of accepted request times (ms), a counter that makes members unique, the set of the
 * API key's retired public keys. ARGV[3] the public key presented, '' for none: a retired one is
 * answered {-1, 0, 0} and takes no place. The server's clock, so every API process judges with the
 * same time. A refused request takes no place; a member exactly one window old no longer counts.
 */
const SLIDING_WINDOW = new LuaScript(`
if ARGV[3] ~= '' and redis.call('SISMEMBER', KEYS[3], ARGV[3]) == 1 then return {-1, 0, 0} end
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  local sequence = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], now, time[1] .. '.' .. time[2] .. '.' .. sequence)
  redis.call('PEXPIRE', KEYS[1], window)
  redis.call('PEXPIRE', KEYS[2], window)
  return {1, limit - count - 1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local retry = math.ceil((tonumber(oldest[2]) + window - now) / 1000)
if retry < 1 then retry = 1 end
return {0, 0, retry}
`);

/** How long a regenerated-away key stays on its API key's retired set (refreshed by each regeneration). */
const RETIRED_FOR_MS = 24 * 60 * 60 * 1000;

/**
 * A sliding window per API key, shared by every API process through Redis (product decisions). It
 * also holds each API key's retired public keys: retired before the regeneration answers, refused by
 * the script that takes the request's place. Processes hear of a regeneration through the read
 * models' change feed a moment after the commit; this makes "refused from then on" hold everywhere at
 * once, without a second round trip.
 */
export class RedisRateLimiter {
  readonly limit: number;
  private readonly windowMs: number;
  private readonly prefix: string;

  /** `limit`: requests allowed per window (API document section 8: 120). */
  constructor(private readonly redis: Redis, { limit = 120, windowMs = 60_000, prefix = 'ratelimit:' } = {}) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.prefix = prefix;
    if (!Number.isInteger(this.limit) || this.limit < 1) throw new Error('rate limit must be a positive integer');
    if (!Number.isInteger(this.windowMs) || this.windowMs < 1) throw new Error('rate-limit window must be a positive integer');
  }

  /** Takes a place for one request of this API key when one is free. */
  async consume(apiKeyId: string): Promise<RateLimitDecision> {
    return (await this.consumeUnlessRetired(apiKeyId, '')) as RateLimitDecision;
  }

  /** As consume, for a request that presented `key`; null (no place taken) when that key was regenerated away. */
  async consumeUnlessRetired(apiKeyId: string, key: string): Promise<RateLimitDecision | null> {
    const base = this.base(apiKeyId);
    const reply = replyArray(await SLIDING_WINDOW.run(this.redis, [base, `${base}:seq`, `${base}:retired`], [this.limit, this.windowMs, key]));
    if (replyInteger(reply[0]) === -1) return null;
    const allowed = replyInteger(reply[0]) === 1;
    if (!allowed) reportRefusal('rate_limited');
    return {
      allowed,
      limit: this.limit,
      remaining: replyInteger(reply[1]),
      retryAfterSeconds: allowed ? null : replyInteger(reply[2]),
    };
  }

  /** Refuses `key` (an API key's public part) from now on, in every process: called after its regeneration commits. */
  async retire(apiKeyId: string, key: string): Promise<void> {
    const retired = `${this.base(apiKeyId)}:retired`;
    await this.redis.multi().sadd(retired, key).pexpire(retired, RETIRED_FOR_MS).exec();
  }

  // The hash tag keeps the keys in one slot, which a script needs on a Redis Cluster.
  private base(apiKeyId: string): string {
    return `${this.prefix}{${apiKeyId}}`;
  }
}

/** The headers every authenticated answer carries, 429s included (product decisions, Rate limit). */
export const rateLimitHeaders = (decision: RateLimitDecision): Record<string, string> => {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
  };
  if (decision.retryAfterSeconds !== null) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
};
