import type { Redis } from 'ioredis';
import { apiError } from '../errors/api-error.js';
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

/** KEYS[1] the address's counter. */
const READ_FAILURES = new LuaScript(`
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}
`);

/** How long an address seen at most half-way to its limit is let through without asking Redis. */
const ALLOWED_FOR_MS = 1_000;
/** Addresses remembered as allowed at most; past it the memory starts afresh. */
const MAX_ALLOWED_ADDRESSES = 10_000;

/**
 * A per-address limit on failed authentication, shared by every API process through Redis: past
 * `limit` failures (wrong, unknown or malformed credentials) within the window, every request from
 * that address is answered 429 `rate_limited` with Retry-After until the window ends, before any
 * credential is looked at, so guessing keys costs the guesser time and the service nothing.
 * Generous on purpose (100 a minute by default): a client with a wrong key retrying every second never
 * reaches it, while a guesser is held to under two tries a second.
 * When Redis cannot answer, authentication goes on unthrottled rather than failing honest callers.
 * An address found at most half-way to the limit is let through for a second without asking Redis
 * again (one round trip per request saved for honest callers); any failure this process records for
 * it ends that at once, so only failures made through other API processes in that second go unseen,
 * for that second.
 */
export class FailedAuthThrottle {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly prefix: string;
  /** Addresses let through without a Redis read until the time given (performance.now()). */
  private readonly allowedUntil = new Map<string, number>();

  constructor(private readonly redis: Redis, options: FailedAuthThrottleOptions = {}) {
    this.limit = options.limit ?? 100;
    this.windowMs = options.windowMs ?? 60_000;
    this.prefix = options.prefix ?? 'authfail:';
  }

  /** Throws 429 rate_limited while the address is over its limit. */
  async assertAllowed(address: string): Promise<void> {
    if ((this.allowedUntil.get(address) ?? 0) > performance.now()) return;
    const reply = await READ_FAILURES.run(this.redis, [this.key(address)], []).catch(() => null);
    if (reply === null) return;
    const [count, ttlMs] = replyArray(reply).map(replyInteger);
    if ((count ?? 0) < this.limit) {
      if ((count ?? 0) * 2 <= this.limit) this.allow(address);
      return;
    }
    const retryAfter = String(Math.max(1, Math.ceil((ttlMs ?? this.windowMs) / 1000)));
    // The documented 429 headers, describing the limit that was hit: this address's failed attempts.
    throw apiError('rate_limited', 'Too many failed authentication attempts from this address; retry after Retry-After seconds.', {
      'Retry-After': retryAfter, 'X-RateLimit-Limit': String(this.limit), 'X-RateLimit-Remaining': '0',
    });
  }

  async recordFailure(address: string): Promise<void> {
    this.allowedUntil.delete(address);
    await COUNT_FAILURE.run(this.redis, [this.key(address)], [this.windowMs]).catch(() => undefined);
  }

  private allow(address: string): void {
    if (this.allowedUntil.size >= MAX_ALLOWED_ADDRESSES) this.allowedUntil.clear();
    this.allowedUntil.set(address, performance.now() + ALLOWED_FOR_MS);
  }

  private key(address: string): string {
    return `${this.prefix}${address}`;
  }
}
