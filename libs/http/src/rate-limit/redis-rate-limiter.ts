import type { Redis } from 'ioredis';
import { LuaScript, replyArray, replyInteger } from '../redis/lua-script.js';

export interface RateLimiterOptions {
  /** Requests allowed per window (API document section 8: 120). */
  limit?: number;
  windowMs?: number;
  prefix?: string;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number | null;
}

/*
 * KEYS[1] the ZSET of accepted request times (ms), KEYS[2] a counter that makes members unique.
 * The server clock is read inside the script so every API process judges with the same time.
 * A refused request adds nothing, so it uses no place. Members older than the window are removed
 * first; a member exactly one window old no longer counts.
 */
const SLIDING_WINDOW = new LuaScript(`
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

/** A sliding window per API key, shared by every API process through Redis (product decisions). */
export class RedisRateLimiter {
  readonly limit: number;
  private readonly windowMs: number;
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    options: RateLimiterOptions = {},
  ) {
    this.limit = options.limit ?? 120;
    this.windowMs = options.windowMs ?? 60_000;
    this.prefix = options.prefix ?? 'ratelimit:';
    if (!Number.isInteger(this.limit) || this.limit < 1) throw new Error('rate limit must be a positive integer');
    if (!Number.isInteger(this.windowMs) || this.windowMs < 1) throw new Error('rate-limit window must be a positive integer');
  }

  /** Takes a place for one request of this API key when one is free. */
  async consume(apiKeyId: string): Promise<RateLimitDecision> {
    // The hash tag keeps both keys in one slot, which a script needs on a Redis Cluster.
    const base = `${this.prefix}{${apiKeyId}}`;
    const reply = replyArray(await SLIDING_WINDOW.run(this.redis, [base, `${base}:seq`], [this.limit, this.windowMs]));
    const allowed = replyInteger(reply[0]) === 1;
    return {
      allowed,
      limit: this.limit,
      remaining: replyInteger(reply[1]),
      retryAfterSeconds: allowed ? null : replyInteger(reply[2]),
    };
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
