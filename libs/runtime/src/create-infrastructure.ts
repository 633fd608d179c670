import type pg from 'pg';
import type { Logger } from 'pino';
import { EventWriter, warmUpFolds } from '#commands';
import {
  type EventStore, createEmbeddedEventStore, createEsdbEventStore, createPostgresEventStore, startEmbeddedDatabase,
} from '#event-store';
import { CursorCodec } from '#http';
import {
  type DatabaseOutage, SecretBox, type ServiceConfig, SimulatedClock, deriveKey, isPostgresUrl, noDatabaseOutage,
  resolveServiceSecret, systemClock,
} from '#platform';
import {
  type DocumentStore, createMongoDocumentStore, createPostgresDocumentStore, inlineReadModels, prepareReadModels, readModels,
} from '#read-models';
import { type AuditStores, openAuditStores } from './audit-wiring.js';
import { redisReady, requestRedis, serverPool } from './connections.js';
import { startFollowers } from './followers.js';
import type { Infrastructure } from './infrastructure.js';
import { InlineProjectors } from './inline-projectors.js';
import { CompositeReadSide } from './read-side.js';
import { DatabaseHealth, waitForDatabase } from './database-health.js';
import { Tracing } from './observability/tracing.js';
import { RedisHealth } from './redis-health.js';
import { PostgresServers } from './postgres-servers.js';
import { primaryReads, replicaReads } from './public-reads.js';

/* The composition root: it chooses the adapters and passes the deployment value; each library builds its own parts. */

export interface InfrastructureOptions {
  /** The log's followers (followers.ts): `run` here (standalone), `leased` (cluster workers), `none` (API, internal app). */
  followers: 'run' | 'leased' | 'none';
  /** Only the public API's processes open READ_REPLICA_URL, for their GETs (public-reads.ts). */
  publicApi?: boolean;
}

export interface Stores {
  eventStore: EventStore;
  documents: DocumentStore;
  /** The PostgreSQL pool `documents` is on (its primary); null for MongoDB. */
  documentsPool: pg.Pool | null;
  /** Where side-effect tables live (delivery log, outbox, dispatch checkpoint). */
  sqlPool: pg.Pool;
  /** Chain keys and the seals (docs/audit.md); `eventStore` already stamps every append. */
  audit: AuditStores;
  /**
   * The projectors run inside every append where the log, the read models and the side-effect tables are
   * one SQL database (docs/architecture.md, "Inline projections"); null elsewhere or when turned off.
   */
  inline: InlineProjectors | null;
  stop(): Promise<void>;
}

/** The PostgreSQL servers a configuration uses (none on the embedded store), each URL once. */
export const databaseServers = (config: ServiceConfig, logger: Logger): PostgresServers =>
  new PostgresServers([
    { url: config.eventStoreUrl, name: 'EVENT_STORE_URL' },
    { url: config.readStoreUrl, name: 'READ_STORE_URL' },
  ].filter((entry): entry is { url: string; name: string } => entry.url !== null && isPostgresUrl(entry.url)), logger);

/** Stops to run last first; one that fails is logged and the others still run. */
const stopList = (logger: Logger, stops: (() => Promise<void>)[] = []) => ({
  stops,
  stopAll: async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
  },
});

/** The log (embedded PGlite by default, PostgreSQL, EventStoreDB) and the read store (PostgreSQL, MongoDB) configured. */
export const openStores = async (
  config: ServiceConfig, logger: Logger, database: DatabaseOutage = noDatabaseOutage, servers: PostgresServers = databaseServers(config, logger),
): Promise<Stores> => {
  const { stops, stopAll } = stopList(logger);
  try {
    // A host list's pools open their connections on the primary found here (createInfrastructure has
    // waited for one already; the audit command line has not).
    for (const server of servers.all) if (server.locator !== null && server.locator.primary === null) await server.locator.locate();
    let eventStore: EventStore;
    let sqlPool: pg.Pool;
    if (!config.eventStoreUrl) {
      const embedded = await createEmbeddedEventStore({ dataDir: config.dataDir, logger });
      stops.push(() => embedded.stop());
      eventStore = embedded.store;
      sqlPool = embedded.database.pool;
    } else if (isPostgresUrl(config.eventStoreUrl)) {
      sqlPool = serverPool(servers.get(config.eventStoreUrl), 'log', logger, database);
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
        sqlPool = serverPool(servers.get(sideUrl), 'side', logger, database);
        stops.push(() => sqlPool.end());
      } else {
        const database = await startEmbeddedDatabase({ dataDir: config.dataDir, logger });
        stops.push(() => database.stop());
        sqlPool = database.pool;
      }
    }

    let documents: DocumentStore;
    let documentsPool: pg.Pool | null = null;
    let oneDatabase = false;
    if (config.readStoreUrl?.startsWith('mongodb')) {
      documents = createMongoDocumentStore({ url: config.readStoreUrl });
    } else if (config.readStoreUrl && isPostgresUrl(config.readStoreUrl) && config.readStoreUrl !== config.eventStoreUrl) {
      const readPool = serverPool(servers.get(config.readStoreUrl), 'read', logger, database);
      stops.push(() => readPool.end());
      documents = createPostgresDocumentStore({ pool: readPool, schema: 'public', deployment: 'multi-process' });
      documentsPool = readPool;
    } else {
      documents = createPostgresDocumentStore({ pool: sqlPool, schema: 'public', deployment: config.deployment });
      documentsPool = sqlPool;
      oneDatabase = !config.eventStoreUrl || isPostgresUrl(config.eventStoreUrl);
    }
    stops.push(() => documents.close());
    await prepareReadModels(documents);

    const audited = await openAuditStores(config, sqlPool, eventStore);
    let inline: InlineProjectors | null = null;
    if (oneDatabase && config.inlineProjections) {
      inline = new InlineProjectors(audited.eventStore);
      inline.add(inlineReadModels(documents, config.deployment));
    }
    return { eventStore: audited.eventStore, documents, documentsPool, sqlPool, audit: audited.audit, inline, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
};

export const createInfrastructure = async (config: ServiceConfig, logger: Logger, options: InfrastructureOptions): Promise<Infrastructure> => {
  const servers = databaseServers(config, logger);
  await waitForDatabase(servers.all, logger);
  const databaseHealth = servers.all.length > 0 ? new DatabaseHealth(servers.all, logger) : null;
  const database = databaseHealth ?? noDatabaseOutage;
  const stores = await openStores(config, logger, database, servers);
  const { eventStore, documents, sqlPool } = stores;
  // Traces are sent last at a stop: what the stopping parts report still goes out.
  const tracing = Tracing.start(String(logger.bindings()['name'] ?? 'hiring'), logger);
  const { stops, stopAll } = stopList(logger, [async () => tracing?.stop(), () => stores.stop(), async () => databaseHealth?.stop()]);
  try {
    const redis = requestRedis(config.redis);
    const redisHealth = new RedisHealth(redis, logger, config.redis);
    stops.push(async () => {
      redisHealth.closingOnPurpose();
      redis.disconnect();
    });
    await redisReady(redis);

    const readSide = new CompositeReadSide(database);
    const simulatedClock = config.simulatedClock ? new SimulatedClock(eventStore) : null;
    const clock = simulatedClock ?? systemClock;
    const reads = readModels({ documents, eventStore, logger, clock, database });
    const followers = await startFollowers({
      mode: options.followers, readModels: reads, followsInline: stores.inline !== null, stores, config, logger, readSide, onStop: (stop) => stops.push(stop),
    });

    const publicReads = options.publicApi === true && config.readReplicaUrl !== null && stores.documentsPool !== null
      ? await replicaReads(config.readReplicaUrl, logger, documents, stores.documentsPool)
      : primaryReads(documents);
    stops.push(() => publicReads.stop());

    const serviceSecret = resolveServiceSecret(config.serviceSecret, config.dataDir);
    const writer = new EventWriter(eventStore, clock, readSide, config, logger);
    warmUpFolds();
    // Stops run last first: the snapshots queued are written before the stores close.
    stops.push(() => writer.flushSnapshots());
    const infra: Infrastructure = {
      config, logger, eventStore, documents, publicReads, sidePool: sqlPool, databaseServers: servers, audit: stores.audit, inline: stores.inline, redis, redisHealth, database, clock, simulatedClock,
      secretBox: new SecretBox(serviceSecret), serviceSecret, cursors: new CursorCodec(deriveKey(serviceSecret, 'cursors')),
      readSide, lookups: reads.lookups, writer, messaging: null, followers, tracing,
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
