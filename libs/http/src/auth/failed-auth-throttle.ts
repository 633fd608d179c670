import type { Redis } from 'ioredis';
import { reportRefusal } from '#platform/instrumentation/channels.js';
import { type ApiError, apiError } from '../errors/api-error.js';
import { LuaScript, replyArray, replyInteger } from '../redis/lua-script.js';

export interface FailedAuthThrottleOptions {
  /** Failed authentications allowed per address and window. */
  limit?: number;
  windowMs?: number;
  prefix?: string;
}

/** KEYS[1] the address's counter. ARGV: window ms. Counts one failure; the window starts with the first. */
const COUNT_FAILURE = new LuaScript(`
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
return {count, redis.call('PTTL', KEYS[1])}
`);

/**
 * A per-address limit on failed authentication, shared by every API process through Redis: past
 * `limit` failures (wrong, unknown or malformed credentials) within the window, a failed attempt from
 * that address is answered 429 `rate_limited` with Retry-After until the window ends, instead of 401.
 * Only failures are throttled: a valid credential is authenticated first and served whatever its
 * address's count (its own per-key rate limit still applies), so one guesser behind a NAT or a proxy
 * does not lock out the integrators sharing its address. That answering 200 tells the guesser its
 * guess was right is no loss: keys carry 120 random bits and secrets 256, so no guess is ever right;
 * what the throttle bounds is the guesser's rate (and so its cost to the service), not what a guess
 * learns. The valid path never asks Redis here; a failure costs one round trip, which both counts it
 * and tells whether the address is past its limit.
 * Generous on purpose (100 a minute by default): a client with a wrong key retrying every second never
 * reaches it, while a guesser is held to under two tries a second.
 * When Redis cannot answer, the failure is not counted and answered 401 rather than failing anyone.
 */
export class FailedAuthThrottle {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly prefix: string;

  constructor(private readonly redis: Redis, options: FailedAuthThrottleOptions = {}) {
    this.limit = options.limit ?? 100;
    this.windowMs = options.windowMs ?? 60_000;
    this.prefix = options.prefix ?? 'authfail:';
  }

  /**
   * Counts a failed authentication from the address and returns the refusal to answer it with:
   * 401 `unauthorized`, or 429 `rate_limited` once the address is past its limit in the window.
   */
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
