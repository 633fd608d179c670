import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { EventWriter, WriteLookups } from '#commands';
import type { Messaging } from '#messaging';
import type { AuditStores } from './audit-wiring.js';
import type { CompositeReadSide } from './read-side.js';
import type { InlineProjectors } from './inline-projectors.js';
import type { ProcessObservability } from './observability/process-observability.js';
import type { RedisHealth } from './redis-health.js';
import type { PostgresServers } from './postgres-servers.js';
import type { PublicReads } from './public-reads.js';
import type { Tracing } from './observability/tracing.js';
import type { EventStore } from '#event-store';
import type { CursorCodec } from '#http';
import type { Clock, DatabaseOutage, SecretBox, ServiceConfig, SimulatedClock } from '#platform';
import type { DocumentStore } from '#read-models';

/** Everything a process of the service shares: built once at start by the composition root. */
export interface Infrastructure {
  config: ServiceConfig;
  logger: Logger;
  eventStore: EventStore;
  documents: DocumentStore;
  /** The public API's reads: `documents`, or with READ_REPLICA_URL its standbys for GETs (public-reads.ts). */
  publicReads: PublicReads;
  /** Where side-effect tables live (delivery log, outbox, dispatch checkpoint). */
  sidePool: pg.Pool;
  /** The PostgreSQL URLs of the process (none on the embedded store): which host is the primary of each. */
  databaseServers: PostgresServers;
  audit: AuditStores;
  /** The projectors run inside append transactions; null where the log and the read models are not one SQL database. */
  inline: InlineProjectors | null;
  redis: Redis;
  /** Logs an outage once; lets writes stop waiting for side effects that cannot move. */
  redisHealth: RedisHealth;
  /** Logs a database outage once; the HTTP edge answers at once meanwhile and the followers wait (always up on the embedded store). */
  database: DatabaseOutage;
  clock: Clock;
  simulatedClock: SimulatedClock | null;
  secretBox: SecretBox;
  serviceSecret: string;
  cursors: CursorCodec;
  readSide: CompositeReadSide;
  /** Set once the messaging side has started in this process (null in public-API-only processes). */
  messaging: Messaging | null;
  lookups: WriteLookups;
  /** One per process, shared by every Nest application in it (its per-stream queue must be shared). */
  writer: EventWriter;
  /** A worker of a cluster: the projections and the sealer it runs while it holds the followers' lease (null elsewhere). */
  followers: LeasedFollowers | null;
  /** OpenTelemetry traces (null unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  tracing: Tracing | null;
  /** Metrics and readiness: made by the first endpoint of the process that serves them (observabilityOf). */
  observability?: ProcessObservability;
  stop(): Promise<void>;
}

/** The log's followers of a worker, started when it takes the lease and stopped when it loses it. */
export interface LeasedFollowers {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export const INFRASTRUCTURE = Symbol('INFRASTRUCTURE');
export const DOCUMENTS = Symbol('DOCUMENTS');
export const CURSORS = Symbol('CURSORS');
/** The erasure's rule for answers stored while a person is deleted (personal-data-erasure.ts, ErasureWindow). */
export const ERASURE_WINDOW = Symbol('ERASURE_WINDOW');
