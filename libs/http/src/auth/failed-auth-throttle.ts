import type { Redis } from 'ioredis';
import { reportRefusal } from '#platform/instrumentation/channels.js';
import { type ApiError, apiError } from '../errors/api-error.js';
import { LuaScript, replyArray, replyInteger } from '../redis/lua-script.js';

/** KEYS[1] the address's counter. ARGV: window ms. Counts one failure; the window starts with the first. */
const COUNT_FAILURE = new LuaScript(`
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
return {count, redis.call('PTTL', KEYS[1])}
`);

/**
 * A per-address limit on failed authentication, shared through Redis: past `limit` failures in the
 * window, a failure from that address is answered 429 `rate_limited` with Retry-After instead of 401.
 * Only failures are throttled, so a guesser behind a NAT does not lock out the integrators sharing
 * its address; a valid credential is served whatever the count (keys carry 120 random bits and
 * secrets 256: no guess is ever right, the throttle bounds the guesser's rate and cost). The valid
 * path never asks Redis; a failure costs one round trip that counts it and reads the count.
 * Generous (100 a minute): a client retrying a wrong key every second never reaches it.
 * When Redis cannot answer, the failure is not counted and answered 401 rather than failing anyone.
 */
export class FailedAuthThrottle {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly prefix: string;

  /** `limit`: failed authentications allowed per address and window. */
  constructor(private readonly redis: Redis, { limit = 100, windowMs = 60_000, prefix = 'authfail:' } = {}) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.prefix = prefix;
  }

  /** Counts a failed authentication from the address: 401 `unauthorized`, or 429 once past the limit. */
  async refusal(address: string): Promise<ApiError> {
    const reply = await COUNT_FAILURE.run(this.redis, [this.key(address)], [this.windowMs]).catch(() => null);
    const [count, ttlMs] = reply === null ? [] : replyArray(reply).map(replyInteger);
    if (count === undefined || count <= this.limit) {
      reportRefusal('auth_failed');
      return apiError('unauthorized');
    }
    reportRefusal('auth_throttled');
    const retryAfter = String(Math.max(1, Math.ceil((ttlMs ?? this.windowMs) / 1000)));
    // Retry-After only: X-RateLimit-Limit is the key's 120 a minute (API document 8), and no key was
    // authenticated here, so the rate-limit headers are absent, as on the 401 this 429 replaces.
    return apiError('rate_limited', 'Too many failed authentication attempts from this address; retry after Retry-After seconds.', {
      'Retry-After': retryAfter,
    });
  }

  private key(address: string): string {
    return `${this.prefix}${address}`;
  }
}
