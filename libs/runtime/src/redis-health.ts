import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type RedisTarget, redisTargetAddress } from '#platform';
import { reportFailover } from '#platform/instrumentation/channels.js';

/**
 * Watches the service's Redis connection and says ONCE that Redis is unreachable (and once that it
 * is back), instead of one stack trace per reconnection attempt and per request. What depends on it
 * asks `isUp` to fail fast, or `untilDown()` to stop waiting for something that cannot move.
 */
export class RedisHealth {
  /** Whether this process's connection is ready now (its own 'ready' and 'close' events): what its requests meet. */
  private up = false;
  private announcedDown = false;
  // One promise per period of being up, shared by every waiter (no list that grows with each write).
  private down: Promise<void> = Promise.resolve();
  private signalDown: () => void = () => undefined;
  /** The service closes the connection itself (shutdown): nothing to announce. */
  private closing = false;
  /** host:port the connection reached last (behind Sentinel: the master it was sent to), null before. */
  private reached: string | null = null;

  constructor(redis: Redis, logger: Logger, target: RedisTarget) {
    const address = redisTargetAddress(target);
    redis.on('ready', () => {
      const now = redis.stream?.remoteAddress === undefined ? null : `${redis.stream.remoteAddress}:${String(redis.stream.remotePort)}`;
      if (target.kind === 'sentinel' && now !== null && this.reached !== null && now !== this.reached) {
        reportFailover('redis');
        logger.warn({ redis: address, from: this.reached, to: now }, 'the Redis master changed (Sentinel failover): connections follow it');
      }
      if (now !== null) this.reached = now;
      if (this.announcedDown) logger.info({ redis: address }, 'Redis is reachable again; queued side effects catch up');
      if (!this.up) this.down = new Promise((resolveDown) => { this.signalDown = resolveDown; });
      this.up = true;
      this.announcedDown = false;
    });
    const down = (error?: Error): void => {
      const wasUp = this.up;
      this.up = false;
      if (wasUp) this.signalDown();
      if (this.closing || this.announcedDown || redis.status === 'ready') return;
      this.announcedDown = true;
      logger.warn({ redis: address, reason: error?.message ?? 'connection closed' },
        'Redis is unreachable: API requests answer 500 server_error at once, webhooks and e-mails wait, internal writes still succeed; retrying in the background');
    };
    redis.on('error', (error: Error) => down(error));
    redis.on('close', () => down());
    if (redis.status === 'ready') {
      this.up = true;
      this.down = new Promise((resolveDown) => { this.signalDown = resolveDown; });
    }
  }

  /** Called before the service disconnects on purpose: the close that follows is not an outage. */
  closingOnPurpose(): void {
    this.closing = true;
  }

  get isUp(): boolean {
    return this.up;
  }

  /** host:port of the Redis server (the master, behind Sentinel) the connection reached last. */
  get master(): string | null {
    return this.reached;
  }

  /** Resolves when the connection is lost (at once if it is down). */
  untilDown(): Promise<void> {
    return this.up ? this.down : Promise.resolve();
  }
}
