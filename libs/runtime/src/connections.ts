import { Redis, type RedisOptions } from 'ioredis';
import pg from 'pg';
import type { Logger } from 'pino';
import type { DatabaseOutage, RedisTarget } from '#platform';
import type { PostgresServer } from './postgres-servers.js';

const DROP_LINES_EVERY_MS = 10_000;

const CONNECT_TIMEOUT_MS = 5000;

/** TCP keep-alive on every pooled connection: a host that vanished without closing them is found by the kernel too. */
const KEEP_ALIVE_DELAY_MS = 10_000;

/**
 * A pool on a PostgreSQL server. An idle connection the server drops (restart, failover, `pg_terminate_backend`)
 * makes the pool emit 'error', fatal unheard: here one warning line, and the pool opens another on next use.
 */
export const serverPool = (server: PostgresServer, name: string, logger: Logger, database: DatabaseOutage, extra: pg.PoolConfig = {}): pg.Pool => {
  // A server that does not answer (a host gone in a failover) fails a connection after 5 s, not never;
  // the health watcher then declares the outage. A host list's connections open on its primary.
  const pool = new pg.Pool({
    ...server.poolConfig(), max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS, ...extra,
  });
  // A connection that ends while checked out emits 'error' on its client, which the pool hears only while
  // it is idle: unheard, it killed the process. Its statements fail on their own; this only keeps us alive.
  pool.on('connect', (client) => {
    client.on('error', (error) => database.report(error));
  });
  // A restart drops every idle connection at once: one line for them, then a count at most every 10 s.
  let quietUntil = 0;
  let unreported = 0;
  pool.on('error', (error: Error & { code?: string }) => {
    database.report(error);
    if (Date.now() < quietUntil) {
      unreported += 1;
      return;
    }
    logger.warn({ pool: name, code: error.code, err: error.message, ...(unreported > 0 ? { droppedSinceLastLine: unreported } : {}) },
      'a database connection was dropped; the pool opens another on next use');
    quietUntil = Date.now() + DROP_LINES_EVERY_MS;
    unreported = 0;
  });
  return pool;
};

const REDIS_READY_WAIT_MS = 3000;

/** A master that stops answering is given this long before the sentinels are asked again (docs/operations.md, "High availability"). */
const SENTINEL_COMMAND_TIMEOUT_MS = 1000;
const SENTINEL_CONNECT_TIMEOUT_MS = 2000;

/**
 * What every Redis connection of the process shares: the address, or the sentinels with `failoverDetector`
 * (`+switch-master` moves each connection at once, not after a failed command), the passwords, keep-alive,
 * and a reconnection on READONLY (a master demoted under an open connection).
 */
export const redisOptions = (target: RedisTarget): RedisOptions => {
  const common: RedisOptions = {
    keepAlive: KEEP_ALIVE_DELAY_MS,
    reconnectOnError: (error) => (/^READONLY/.test(error.message) ? 2 : false),
    ...(target.password === null ? {} : { password: target.password }),
  };
  if (target.kind === 'url') return common;
  return {
    ...common,
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.name,
    ...(target.sentinelPassword === null ? {} : { sentinelPassword: target.sentinelPassword }),
    failoverDetector: true,
    sentinelCommandTimeout: SENTINEL_COMMAND_TIMEOUT_MS,
    connectTimeout: SENTINEL_CONNECT_TIMEOUT_MS,
  };
};

/**
 * The request path's Redis connection: never a queue behind an outage. Offline, a command fails at once (500);
 * a frozen master fails it after a second. BullMQ's connections are duplicates with their own settings.
 */
export const requestRedis = (target: RedisTarget): Redis => {
  const options: RedisOptions = { ...redisOptions(target), maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1000, lazyConnect: false };
  return target.kind === 'url' ? new Redis(target.url, options) : new Redis(options);
};

/** Waits a moment for the first connection, so the first requests do not fail for nothing; never for long. */
export const redisReady = (redis: Redis, timeoutMs = REDIS_READY_WAIT_MS): Promise<void> =>
  new Promise((resolveReady) => {
    if (redis.status === 'ready') return resolveReady();
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
    function done(): void {
      clearTimeout(timer);
      redis.off('ready', done);
      resolveReady();
    }
  });
