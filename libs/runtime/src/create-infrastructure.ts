import { Redis } from 'ioredis';
import pg from 'pg';
import type { Logger } from 'pino';
import { EventWriter } from '#commands';
import type { WriteLookups } from '#commands';
import { createEmbeddedEventStore, createEsdbEventStore, createPostgresEventStore, startEmbeddedDatabase } from '#event-store';
import type { EventStore } from '#event-store';
import { CursorCodec } from '#http';
import { SimulatedClock, noDatabaseOutage, systemClock } from '#platform';
import type { DatabaseOutage } from '#platform';
import type { ServiceConfig } from '#platform';
import { SecretBox, deriveKey } from '#platform';
import { resolveServiceSecret } from '#platform';
import {
  CheckpointWaiter, INLINE_READ_MODELS, ProjectionRunner, allProjectionNames, allProjections, createInlineReadModels, createMongoDocumentStore, feedCutoff, pruneFeed,
  createPostgresDocumentStore, getApiKey, listAssessmentIds,
} from '#read-models';
import type { ResultDocument } from '#read-models';
import type { DocumentStore } from '#read-models';
import { type AuditStores, createSealer, openAuditStores } from './audit-wiring.js';
import type { LogSealer } from '#event-store';
import type { Infrastructure, LeasedFollowers } from './infrastructure.js';
import { InlineProjectors } from './inline-projectors.js';
import { CompositeReadSide, unlessInline } from './read-side.js';
import { DatabaseHealth, waitForDatabase } from './database-health.js';
import { Tracing } from './observability/tracing.js';
import { RedisHealth } from './redis-health.js';


/** How often the events feed drops rows past its 30 days (they are no longer listed before that either). */
const FEED_PRUNE_EVERY_MS = 60 * 60 * 1000;
export interface InfrastructureOptions {
  /**
   * The loops that follow the log (catch-up projections, sealer): `run` in this process (standalone,
   * one process per DATA_DIR); `leased`: only while this process holds the followers' lease (workers
   * of a cluster: `infra.followers`); `none`: API processes and the internal app only wait for them.
   */
  followers: 'run' | 'leased' | 'none';
}

const REDIS_READY_WAIT_MS = 3000;

/** Waits a moment for the first connection, so the first requests do not fail for nothing; never for long. */
const redisReady = (redis: Redis, timeoutMs: number): Promise<void> =>
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

const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//.test(url);

/**
 * The composition root: picks the adapters from the configuration (embedded PGlite by default,
 * PostgreSQL or EventStoreDB for the log, PostgreSQL or MongoDB for the read models) and wires them.
 */
export interface Stores {
  eventStore: EventStore;
  documents: DocumentStore;
  /** Where side-effect tables live (delivery log, outbox, dispatch checkpoint). */
  sqlPool: pg.Pool;
  /** Chain keys and the seals (docs/audit.md); `eventStore` already stamps every append. */
  audit: AuditStores;
  /**
   * Where the log and the read models (and the side-effect tables) are one SQL database, the
   * projectors run inside every append transaction (docs/architecture.md, "Inline projections");
   * null elsewhere (EventStoreDB, MongoDB, a separate read store) or when turned off.
   */
  inline: InlineProjectors | null;
  stop(): Promise<void>;
}

/**
 * A pool on a PostgreSQL server. A connection the server drops while idle (a restart, a failover,
 * `pg_terminate_backend`) makes the pool emit 'error', which kills the process when nobody listens:
 * here it is one warning line (never the connection's details), the pool drops that connection and
 * opens a fresh one on next use. Queries in flight on it fail as they would anyway.
 */
const serverPool = (connectionString: string, name: string, logger: Logger, database: DatabaseOutage): pg.Pool => {
  // A server that does not answer at all (a host gone in a failover) fails a connection after 5 s
  // instead of never; the health watcher then declares the outage and requests answer at once.
  const pool = new pg.Pool({ connectionString, max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection that ends while checked out (mid-transaction, between two statements) emits 'error'
  // on its client, which the pool only listens to while the client is idle: unheard, it killed the
  // process. The statements in flight on it fail on their own; this listener only keeps it alive.
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

const DROP_LINES_EVERY_MS = 10_000;

const CONNECT_TIMEOUT_MS = 5000;

/** The PostgreSQL servers a configuration uses (none on the embedded store). */
export const databaseUrls = (config: ServiceConfig): string[] =>
  [...new Set([config.eventStoreUrl, config.readStoreUrl].filter((url): url is string => url !== null && url !== undefined && isPostgresUrl(url)))];

/**
 * Opens the log and the read store chosen by the configuration: embedded PGlite by default,
 * PostgreSQL or EventStoreDB for the log, PostgreSQL or MongoDB for the read models.
 */
export const openStores = async (config: ServiceConfig, logger: Logger, database: DatabaseOutage = noDatabaseOutage): Promise<Stores> => {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
  };
  try {
    let eventStore: EventStore;
    let sqlPool: pg.Pool;
    if (!config.eventStoreUrl) {
      const embedded = await createEmbeddedEventStore({ dataDir: config.dataDir, logger });
      stops.push(() => embedded.stop());
      eventStore = embedded.store;
      sqlPool = embedded.database.pool;
    } else if (isPostgresUrl(config.eventStoreUrl)) {
      sqlPool = serverPool(config.eventStoreUrl, 'log', logger, database);
      stops.push(() => sqlPool.end());
      const store = await createPostgresEventStore({ pool: sqlPool, logger, deployment: config.deployment });
      stops.push(() => store.close());
      eventStore = store;
    } else {
      const store = await createEsdbEventStore({ connectionString: config.eventStoreUrl, logger });
      stops.push(() => store.close());
      eventStore = store;
      // Read models and side-effect tables still need SQL: a PostgreSQL READ_STORE_URL, or the embedded one.
      const sideUrl = config.readStoreUrl && isPostgresUrl(config.readStoreUrl) ? config.readStoreUrl : null;
      if (sideUrl) {
        sqlPool = serverPool(sideUrl, 'side', logger, database);
        stops.push(() => sqlPool.end());
      } else {
        const database = await startEmbeddedDatabase({ dataDir: config.dataDir, logger });
        stops.push(() => database.stop());
        sqlPool = database.pool;
      }
    }

    let documents: DocumentStore;
    let oneDatabase = false;
    if (config.readStoreUrl?.startsWith('mongodb')) {
      documents = createMongoDocumentStore({ url: config.readStoreUrl });
    } else if (config.readStoreUrl && isPostgresUrl(config.readStoreUrl) && config.readStoreUrl !== config.eventStoreUrl) {
      const readPool = serverPool(config.readStoreUrl, 'read', logger, database);
      stops.push(() => readPool.end());
      documents = createPostgresDocumentStore({ pool: readPool, schema: 'public', deployment: 'multi-process' });
    } else {
      documents = createPostgresDocumentStore({ pool: sqlPool, schema: 'public', deployment: config.deployment });
      oneDatabase = !config.eventStoreUrl || isPostgresUrl(config.eventStoreUrl);
    }
    stops.push(() => documents.close());
    await documents.prepare(allProjections);

    const audited = await openAuditStores(config, sqlPool, eventStore);
    let inline: InlineProjectors | null = null;
    if (oneDatabase && config.inlineProjections) {
      inline = new InlineProjectors(audited.eventStore);
      inline.add(createInlineReadModels({
        schema: 'public', projections: allProjections, announce: (collections) => documents.announce?.(collections),
        deployment: config.deployment,
      }));
    }
    return { eventStore: audited.eventStore, documents, sqlPool, audit: audited.audit, inline, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
};

export const createInfrastructure = async (config: ServiceConfig, logger: Logger, options: InfrastructureOptions): Promise<Infrastructure> => {
  const urls = databaseUrls(config);
  await waitForDatabase(urls, logger);
  const databaseHealth = urls.length > 0 ? new DatabaseHealth(urls, logger) : null;
  const database = databaseHealth ?? noDatabaseOutage;
  const stores = await openStores(config, logger, database);
  const { eventStore, documents, sqlPool } = stores;
  // Traces are sent last at a stop: what the stopping parts report still goes out.
  const tracing = Tracing.start(String(logger.bindings()['name'] ?? 'hiring'), logger);
  const stops: (() => Promise<void>)[] = [async () => tracing?.stop(), () => stores.stop(), async () => databaseHealth?.stop()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
  };
  try {
    // Requests never queue behind an outage: offline, a command fails at once (500); a Redis that
    // accepts the connection but does not answer fails it after a second. BullMQ's connections are
    // duplicates with their own settings (start-messaging.ts).
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1000, lazyConnect: false });
    const redisHealth = new RedisHealth(redis, logger, config.redisUrl);
    stops.push(async () => {
      redisHealth.closingOnPurpose();
      redis.disconnect();
    });
    await redisReady(redis, REDIS_READY_WAIT_MS);

    const readSide = new CompositeReadSide(database);
    const simulatedClock = config.simulatedClock ? new SimulatedClock(eventStore) : null;
    const clock = simulatedClock ?? systemClock;
    // The events feed's rows older than 30 days go where the projections run, every hour.
    const housekeeping = {
      everyMs: FEED_PRUNE_EVERY_MS,
      run: async () => {
        const pruned = await pruneFeed(documents, feedCutoff(await clock.now()));
        if (pruned > 0) logger.info({ pruned }, 'events feed: rows older than 30 days deleted');
      },
    };
    const newRunner = () => new ProjectionRunner({ eventStore, documentStore: documents, projections: allProjections, logger, followsInline: stores.inline !== null, database, housekeeping });
    if (options.followers === 'run') {
      const runner = newRunner();
      await runner.start();
      stops.push(() => runner.stop());
      readSide.add(unlessInline(INLINE_READ_MODELS, runner));
    } else {
      readSide.add(unlessInline(INLINE_READ_MODELS, new CheckpointWaiter({ documentStore: documents, projectionNames: allProjectionNames })));
    }
    // Followers link and seal the log as it grows; every process seals what was appended at a clean stop.
    const sealer = createSealer(stores, config, logger);
    if (options.followers === 'run') sealer.start();
    stops.push(() => sealer.stop());
    // Under a lease, each holding gets a runner and a sealer of its own (neither restarts once stopped).
    let leased: { runner: ProjectionRunner; sealer: LogSealer } | null = null;
    const followers: LeasedFollowers | null = options.followers !== 'leased' ? null : {
      start: async () => {
        const started = { runner: newRunner(), sealer: createSealer(stores, config, logger) };
        await started.runner.start();
        started.sealer.start();
        leased = started;
      },
      stop: async () => {
        const running = leased;
        leased = null;
        await running?.runner.stop();
        await running?.sealer.stop();
      },
    };

    const serviceSecret = resolveServiceSecret(config.serviceSecret, config.dataDir);
    const lookups: WriteLookups = {
      workspaceOfApiKey: async (apiKeyId) => (await getApiKey(documents, apiKeyId))?.workspaceId ?? null,
      candidateOfResult: async (resultId) => (await documents.get<ResultDocument>('results', resultId))?.candidateId ?? null,
      assessmentsOfWorkspace: (workspaceId) => listAssessmentIds(documents, workspaceId),
    };
    const writer = new EventWriter(eventStore, clock, readSide, config, logger);
    // Stops run last first: the snapshots queued are written before the stores close.
    stops.push(() => writer.flushSnapshots());
    const infra: Infrastructure = {
      config, logger, eventStore, documents, sidePool: sqlPool, audit: stores.audit, inline: stores.inline, redis, redisHealth, database, clock, simulatedClock,
      secretBox: new SecretBox(serviceSecret), serviceSecret, cursors: new CursorCodec(deriveKey(serviceSecret, 'cursors')),
      readSide, lookups, writer, messaging: null, followers, tracing,
      stop: async () => {
        await infra.messaging?.stop().catch((error: unknown) => logger.error({ err: error }, 'messaging stop failed'));
        await stopAll();
      },
    };
    return infra;
  } catch (error) {
    await stopAll();
    throw error;
  }
};
