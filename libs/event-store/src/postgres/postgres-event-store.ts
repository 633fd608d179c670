import type pg from 'pg';
import type { Deployment } from '#platform';
import { pino, type Logger } from 'pino';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  ExpectedRevision,
  InlineProjector,
  NewEvent,
  ReadAllOptions,
  ReadStreamsOptions,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
} from '../event-store.port.js';
import { GroupAppender } from './postgres-group-append.js';
import { DATA_ONLY_COLUMNS, DATA_ONLY_COLUMNS_OF_TYPES, EVENT_COLUMNS, toDataOnlyEvent, toRecordedEvent, type EventRow } from './postgres-rows.js';
import { migratePostgresSchema, postgresTables, type PostgresTables } from './postgres-schema.js';
import { NotificationListener } from './notification-listener.js';
import { PollingSubscription } from './polling-subscription.js';
import { WakeSignal } from './wake-signal.js';

export interface PostgresEventStoreOptions {
  pool: pg.Pool;
  /** PostgreSQL schema holding the tables; lets tests and processes isolate. Default `public`. */
  schema?: string;
  /** How often an idle subscription looks for new events. Default 20 ms. */
  pollIntervalMs?: number;
  /** LISTEN for other processes' appends (a pooled connection). Default: on unless single-process; off on PGlite (one session). */
  listen?: boolean;
  /** NOTIFY listeners in the append transaction. Default true. */
  notify?: boolean;
  /**
   * Named prepared statements for the reads and the grouped insert (planned once per connection).
   * Default: as `listen`. On PGlite a new connection must deallocate first (the embedded pool does).
   */
  preparedStatements?: boolean;
  /**
   * `single-process` (the embedded store; default `multi-process`): this object is the log's only
   * writer, through the pool's one connection. It then knows every stream (read at start, then from
   * its appends) and answers a read of any other without a round trip; appends take no append lock.
   */
  deployment?: Deployment;
  logger?: Logger;
}

const DEFAULT_POLL_INTERVAL_MS = 20;
const BATCH_SIZE = 500;
/** Beyond this many streams the only writer stops keeping their ids in memory (reads go to the database). */
const MAX_KNOWN_STREAMS = 2_000_000;

export class PostgresEventStore implements EventStore {
  private readonly pool: pg.Pool;
  private readonly wakeSignal = new WakeSignal();
  private readonly subscriptions = new Set<Subscription>();
  private readonly listener: NotificationListener | null;
  private readonly pollIntervalMs: number;
  private readonly logger: Logger;
  private readonly sql: ReturnType<typeof statements>;
  private readonly appender: GroupAppender;
  readonly runsStatements = true;
  /**
   * Single-process: every stream id in the log (null: not known, reads go to the database). Kept by this
   * store's appends, all there are (no other process writes this log: deployment.ts), so nothing
   * invalidates it; bounded by MAX_KNOWN_STREAMS (past it, null).
   */
  private knownStreams: Set<string> | null = null;

  constructor(readonly tables: PostgresTables, options: PostgresEventStoreOptions) {
    this.pool = options.pool;
    this.logger = options.logger ?? pino({ name: 'event-store' });
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const listen = options.listen ?? options.deployment !== 'single-process';
    // Events committed while nobody listened are found by the next poll; a (re)start wakes the subscriptions anyway.
    const wake = (): void => this.wakeSignal.notify();
    this.listener = listen
      ? new NotificationListener(this.pool, tables.notifyChannel, { onNotification: wake, onListening: wake }, { logger: this.logger, fallback: 'subscriptions fall back to polling' })
      : null;
    const named = options.preparedStatements ?? listen;
    this.sql = statements(tables, named);
    this.appender = new GroupAppender(this.pool, tables, options.notify ?? true, this.logger, named, options.deployment);
  }

  appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    return this.appendToStreams([{ streamId, events, expectedRevision: options.expectedRevision }]);
  }

  /** Single-process: reads every stream id once (before the store is handed out), then keeps the set from the appends. */
  async learnStreams(): Promise<void> {
    const started = performance.now();
    const result = await this.pool.query<{ stream_id: string }>(`SELECT DISTINCT stream_id FROM ${this.tables.events}`);
    if (result.rows.length > MAX_KNOWN_STREAMS) return;
    this.knownStreams = new Set(result.rows.map((row) => row.stream_id));
    this.logger.debug({ streams: this.knownStreams.size, ms: Math.round(performance.now() - started) }, 'streams of the log known');
  }

  async appendToStreams(appends: StreamAppend[], options?: AppendOptions): Promise<AppendResult> {
    const result = await this.appender.append(appends, options?.statements);
    if (this.knownStreams !== null) {
      for (const append of appends) this.knownStreams.add(append.streamId);
      if (this.knownStreams.size > MAX_KNOWN_STREAMS) this.knownStreams = null;
    }
    // Subscriptions in this process need not wait for a NOTIFY round trip or the next poll.
    this.wakeSignal.notify();
    return result;
  }

  /** EventStore.rehearseAppend: the streams it names are not known to exist, and no subscription wakes. */
  rehearseAppend(appends: StreamAppend[], options?: AppendOptions): Promise<void> {
    return this.appender.rehearse(appends, options?.statements);
  }

  /** Inline projectors run in every grouped append transaction (appends that only check a revision run none). */
  useInlineProjectors(projectors: readonly InlineProjector[]): void {
    this.appender.useProjectors(projectors);
  }

  async readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]> {
    if (this.knownStreams !== null && !this.knownStreams.has(streamId)) return [];
    const result = await this.pool.query<EventRow>({ ...this.sql.readStream, values: [streamId, options?.fromRevision ?? 0] });
    return result.rows.map(toRecordedEvent);
  }

  async readStreams(streamIds: readonly string[], options?: ReadStreamsOptions): Promise<Map<string, RecordedEvent[]>> {
    const streams = new Map<string, RecordedEvent[]>(streamIds.map((streamId) => [streamId, []]));
    const known = this.knownStreams;
    const existing = known === null ? [...streams.keys()] : [...streams.keys()].filter((streamId) => known.has(streamId));
    if (existing.length === 0) return streams;
    const from = existing.map((streamId) => options?.fromRevisions?.get(streamId) ?? 0);
    const result = await this.pool.query<EventRow>({ ...this.sql.readStreams, values: [existing, from] });
    for (const row of result.rows) streams.get(row.stream_id)?.push(toRecordedEvent(row));
    return streams;
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const after = (options.after ?? 0n).toString();
    // Data only: no metadata to parse, no time to turn into a Date and back (a rebuild reads the whole log).
    if (options.dataOnly === true) {
      const types = options.dataOfTypes;
      const query = types === undefined
        ? { ...this.sql.readAllData, values: [after, options.maxCount] }
        : { ...this.sql.readAllDataOfTypes, values: [after, options.maxCount, types] };
      return (await this.pool.query<EventRow>(query)).rows.map(toDataOnlyEvent);
    }
    const result = await this.pool.query<EventRow>({ ...this.sql.readAll, values: [after, options.maxCount] });
    return result.rows.map(toRecordedEvent);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    this.listener?.start();
    const source = {
      readAll: (readOptions: ReadAllOptions) => this.readAll(readOptions),
      wakeSignal: this.wakeSignal,
      pollIntervalMs: this.pollIntervalMs,
      batchSize: BATCH_SIZE,
      logger: this.logger,
    };
    const subscription: Subscription = new PollingSubscription(source, options, () => this.subscriptions.delete(subscription));
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<bigint | null> {
    const result = await this.pool.query<{ position: string | null }>(this.sql.head);
    const position = result.rows[0]?.position ?? null;
    return position === null ? null : BigInt(position);
  }

  /** Stops subscriptions and the listener; the pool belongs to the caller and stays open. */
  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.listener?.stop();
  }
}

/**
 * The reads' statements, named where they are prepared (`named`): names are per connection, and the
 * schema is part of the text, so it is part of the name.
 */
const statements = (tables: PostgresTables, named: boolean) => {
  const statement = (name: string, text: string): pg.QueryConfig => (named ? { name: `es_${name}_${tables.appendLock[1]}`, text } : { text });
  return {
    readStream: statement('read_stream', `SELECT ${EVENT_COLUMNS} FROM ${tables.events} WHERE stream_id = $1 AND revision >= $2 ORDER BY revision`),
    // One index range per stream wanted, whatever plan the server caches for the prepared statement:
    // a plain join against unnest() got a generic plan that hashed it against a scan of the whole
    // log (3 ms per decision at 24k events, growing with the log). OFFSET 0 keeps the lateral
    // subquery from being flattened back into that join.
    readStreams: statement('read_streams', `SELECT e.* FROM unnest($1::text[], $2::bigint[]) AS wanted(wanted_stream, from_revision)
      CROSS JOIN LATERAL (SELECT ${EVENT_COLUMNS} FROM ${tables.events} WHERE stream_id = wanted.wanted_stream AND revision >= wanted.from_revision OFFSET 0) AS e
      ORDER BY e.stream_id, e.revision`),
    readAll: statement('read_all', `SELECT ${EVENT_COLUMNS} FROM ${tables.events} WHERE position > $1 ORDER BY position LIMIT $2`),
    readAllData: statement('read_all_data', `SELECT ${DATA_ONLY_COLUMNS} FROM ${tables.events} WHERE position > $1 ORDER BY position LIMIT $2`),
    // Every event, the data of the types asked for only. (Leaving the other events out instead made
    // the planner trade the index's order for a bitmap scan and a sort of the rest of the log.)
    readAllDataOfTypes: statement(
      'read_all_data_of_types',
      `SELECT ${DATA_ONLY_COLUMNS_OF_TYPES} FROM ${tables.events} WHERE position > $1 ORDER BY position LIMIT $2`,
    ),
    head: statement('head', `SELECT max(position) AS position FROM ${tables.events}`),
  };
};

/** Creates the tables if missing (safe when several processes start at once) and returns the store. */
export async function createPostgresEventStore(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
  const tables = postgresTables(options.schema ?? 'public');
  await migratePostgresSchema(options.pool, tables);
  const store = new PostgresEventStore(tables, options);
  if (options.deployment === 'single-process') await store.learnStreams();
  return store;
}
