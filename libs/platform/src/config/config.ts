import { createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { type Deployment, deploymentOf, isPostgresUrl } from './deployment.js';
import { WRITABLE_TARGETS, parsePostgresUrl } from '../database/postgres-url.js';
import { hashTagged } from '../redis/hash-tags.js';
import { type RedisTarget, parseSentinels } from '../redis/redis-target.js';
import { StartRefused } from './start-refused.js';

/** Every setting of product-decisions.md ("Addresses and configuration"), read once at start. */
export interface ServiceConfig {
  port: number;
  altBasePath: string;
  internalPort: number;
  internalToken: string;
  internalTokenGenerated: boolean;
  appUrl: string;
  /** API_URL (comma-separated, the first the default): the base of the links the API builds; a Host header only picks one. */
  apiUrls: string[];
  dataDir: string;
  eventStoreUrl: string | null;
  /** Decided once, here: see deployment.ts. */
  deployment: Deployment;
  readStoreUrl: string | null;
  /** Standbys serving public GETs, never staler than an acknowledged write (docs/architecture.md); null: the primary. */
  readReplicaUrl: string | null;
  /** False when REDIS_URL and REDIS_SENTINELS are unset: the standalone service may then start a redis-server of its own. */
  redisUrlGiven: boolean;
  /** Where Redis is: REDIS_URL, or the master REDIS_SENTINELS know as REDIS_SENTINEL_NAME (docs/operations.md, "High availability"). */
  redis: RedisTarget;
  smtpUrl: string | null;
  webhookAllowInsecure: boolean;
  webhookBackoffMs: number;
  /** Webhook jobs one worker process runs at once; null: messaging's default (WEBHOOK_CONCURRENCY). */
  webhookConcurrency: number | null;
  simulatedClock: boolean;
  /** Signs cursors and seals webhook secrets; generated and kept in DATA_DIR when unset. */
  serviceSecret: string | null;
  host: string;
  /** Read-your-writes: the longest a write waits for the read side before answering. */
  readYourWritesTimeoutMs: number;
  /** A seal follows the end of a burst of writes within this long, and comes at least every 5 times this long under steady writes (docs/audit.md). */
  sealIntervalMs: number;
  logLevel: string;
  /** Failed authentications allowed per client address and minute before it is answered 429. */
  authFailuresPerMinute: number;
  /** Longest a client may take to send a whole request, headers and body (slow clients hold sockets). */
  httpRequestTimeoutMs: number;
  /**
   * BullMQ key prefix, by default derived from where the log lives: deployments sharing one Redis must not share queues.
   * Hash-tagged (`{ht-<hash>}`, or QUEUE_PREFIX in braces unless it has a `{...}`): one Redis Cluster slot for every key.
   */
  queuePrefix: string;
  /** `ht-<hash>` or QUEUE_PREFIX as given: the prefix of single-key counters (failed-authentication counts). */
  redisName: string;
  /** The untagged prefix of releases before hash tags: drained, never written; null when QUEUE_PREFIX had a tag. */
  legacyQueuePrefix: string | null;
  /** Read models and the outbox updated in the append transaction where they share the log's database; false: followers only. */
  inlineProjections: boolean;
}

const queuePrefixes = (name: string): Pick<ServiceConfig, 'queuePrefix' | 'redisName' | 'legacyQueuePrefix'> => {
  const queuePrefix = hashTagged(name);
  return { queuePrefix, redisName: name, legacyQueuePrefix: queuePrefix === name ? null : name };
};

const flag = (value: string | undefined): boolean => value === 'true' || value === '1';

const positiveInt = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new StartRefused(`${name} must be a whole number, got "${value}"`);
  return parsed;
};

const httpUrls = (value: string | undefined, fallback: string[], name: string): string[] => {
  const urls = (value ?? '').split(',').map((url) => url.trim().replace(/\/+$/, '')).filter((url) => url !== '');
  for (const url of urls) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(url);
    } catch {
      // refused below
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search || parsed.hash || parsed.username) {
      throw new StartRefused(`${name} must be a comma-separated list of http(s) addresses without query, got "${url}"`);
    }
  }
  return urls.length > 0 ? urls : fallback;
};

const normalizePrefix = (value: string): string => {
  const trimmed = value.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
};

/** The other stores each may name: EventStoreDB (KurrentDB) for the log, MongoDB for the read models. */
const OTHER_STORES = { EVENT_STORE_URL: [/^(esdb|kurrentdb)(\+discover)?:\/\//, 'esdb:// (or kurrentdb://)'], READ_STORE_URL: [/^mongodb(\+srv)?:\/\//, 'mongodb://'] } as const;

/** EVENT_STORE_URL, READ_STORE_URL: one host, or a host list asking for a writable host; a refusal never echoes the URL. */
const primaryUrl = (value: string | undefined, name: keyof typeof OTHER_STORES): string | null => {
  if (!value) return null;
  const [other, otherScheme] = OTHER_STORES[name];
  if (other.test(value)) return value;
  if (!isPostgresUrl(value)) throw new StartRefused(`${name} must be a postgres:// or ${otherScheme} URL`);
  const target = parsePostgresUrl(value, name);
  if (!WRITABLE_TARGETS.includes(target.targetSessionAttrs)) {
    throw new StartRefused(`${name} must reach the primary: target_session_attrs=${target.targetSessionAttrs} is for read replicas; use read-write (or primary)`);
  }
  return value;
};

const REPLICA_TARGETS: readonly string[] = ['standby', 'prefer-standby'];

/** A URL asking for a standby of the server the read models are on (the LSNs that keep reads current are its own). */
const replicaUrl = (env: NodeJS.ProcessEnv): string | null => {
  const value = env.READ_REPLICA_URL;
  if (!value) return null;
  const name = 'READ_REPLICA_URL';
  if (!isPostgresUrl(value)) throw new StartRefused(`${name} must be a postgres:// URL`);
  const target = parsePostgresUrl(value, name);
  if (!REPLICA_TARGETS.includes(target.targetSessionAttrs) || !target.hostList) {
    throw new StartRefused(`${name} must ask for a standby: add target_session_attrs=standby (a standby or nothing) or target_session_attrs=prefer-standby (the primary when no standby answers)`);
  }
  const readModelsOnPostgres = env.READ_STORE_URL ? isPostgresUrl(env.READ_STORE_URL) : isPostgresUrl(env.EVENT_STORE_URL ?? null);
  if (!readModelsOnPostgres) throw new StartRefused(`${name} needs the read models on a PostgreSQL server (EVENT_STORE_URL, or READ_STORE_URL) whose standbys it lists`);
  return value;
};

const redisTarget = (env: NodeJS.ProcessEnv, url: string): RedisTarget => {
  const password = env.REDIS_PASSWORD || null;
  if (/^[a-z][\w+.-]*:\/\//i.test(url) && !/^rediss?:\/\//i.test(url)) throw new StartRefused('REDIS_URL must be a redis:// or rediss:// URL');
  if (!env.REDIS_SENTINELS) return { kind: 'url', url, password };
  return {
    kind: 'sentinel',
    sentinels: parseSentinels(env.REDIS_SENTINELS),
    name: env.REDIS_SENTINEL_NAME || 'mymaster',
    sentinelPassword: env.REDIS_SENTINEL_PASSWORD || null,
    password,
  };
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): ServiceConfig => {
  const port = positiveInt(env.PORT, 3000, 'PORT');
  const internalPort = positiveInt(env.INTERNAL_PORT, 3100, 'INTERNAL_PORT');
  const internalToken = env.INTERNAL_TOKEN || randomBytes(24).toString('base64url');
  return {
    port,
    altBasePath: normalizePrefix(env.ALT_BASE_PATH ?? '/api'),
    internalPort,
    internalToken,
    internalTokenGenerated: !env.INTERNAL_TOKEN,
    apiUrls: httpUrls(env.API_URL, [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`], 'API_URL'),
    appUrl: (env.APP_URL || `http://localhost:${internalPort}`).replace(/\/+$/, ''),
    dataDir: resolve(env.DATA_DIR || './data'),
    eventStoreUrl: primaryUrl(env.EVENT_STORE_URL, 'EVENT_STORE_URL'),
    deployment: deploymentOf(env.EVENT_STORE_URL || null, env.READ_STORE_URL || null),
    readStoreUrl: primaryUrl(env.READ_STORE_URL, 'READ_STORE_URL'),
    readReplicaUrl: replicaUrl(env),
    redisUrlGiven: Boolean(env.REDIS_URL) || Boolean(env.REDIS_SENTINELS),
    redis: redisTarget(env, env.REDIS_URL || 'redis://127.0.0.1:6379'),
    smtpUrl: env.SMTP_URL || null,
    webhookAllowInsecure: flag(env.WEBHOOK_ALLOW_INSECURE),
    webhookBackoffMs: positiveInt(env.WEBHOOK_BACKOFF_MS, 60_000, 'WEBHOOK_BACKOFF_MS'),
    webhookConcurrency: env.WEBHOOK_CONCURRENCY ? Math.max(1, positiveInt(env.WEBHOOK_CONCURRENCY, 1, 'WEBHOOK_CONCURRENCY')) : null,
    simulatedClock: flag(env.SIMULATED_CLOCK),
    serviceSecret: env.SERVICE_SECRET || null,
    host: env.HOST || '0.0.0.0',
    readYourWritesTimeoutMs: positiveInt(env.READ_YOUR_WRITES_TIMEOUT_MS, 10_000, 'READ_YOUR_WRITES_TIMEOUT_MS'),
    sealIntervalMs: positiveInt(env.SEAL_INTERVAL_MS, 2_000, 'SEAL_INTERVAL_MS'),
    logLevel: env.LOG_LEVEL || 'info',
    authFailuresPerMinute: Math.max(1, positiveInt(env.AUTH_FAILURES_PER_MINUTE, 100, 'AUTH_FAILURES_PER_MINUTE')),
    httpRequestTimeoutMs: Math.max(1000, positiveInt(env.HTTP_REQUEST_TIMEOUT_MS, 30_000, 'HTTP_REQUEST_TIMEOUT_MS')),
    inlineProjections: env.INLINE_PROJECTIONS !== 'false' && env.INLINE_PROJECTIONS !== '0',
    ...queuePrefixes(env.QUEUE_PREFIX || `ht-${createHash('sha256').update(env.EVENT_STORE_URL || resolve(env.DATA_DIR || './data')).digest('hex').slice(0, 10)}`),
  };
};
