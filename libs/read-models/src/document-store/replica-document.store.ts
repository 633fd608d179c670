import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { Logger } from 'pino';
import { isDatabaseConnectionError, parseLsn, quoteIdent } from '#platform';
import { reportReplicaRead, type ReplicaReadObserved } from '#platform/instrumentation/channels.js';
import type { DocumentStore } from '../shared/document-store.port.js';
import { FreshQuery } from './fresh-query.js';
import { type DocumentReads, type Queryable, postgresReads } from './postgres-reads.js';
import { tableName } from './postgres-sql.js';
import { type Replay, StandbyReplay, StandbyTimeout } from './standby-replay.js';

/** The longest a public GET waits, in all, for a standby to replay what the primary had when it began. */
export const REPLICA_MAX_WAIT_MS = 150;
/** A standby that failed is left alone this long (its locator is asked again meanwhile). */
const PAUSE_AFTER_ERROR_MS = 1000;
/** While no standby is known, its locator is asked at most this often. */
const RELOCATE_EVERY_MS = 1000;
/** Standby timeouts in a row (no answer within the bound) that make it count as failed. */
const TIMEOUTS_BEFORE_PAUSE = 3;

/**
 * The primary's WAL position that covers every write acknowledged before it is read. Every write the
 * service acknowledges is committed synchronously first (events, inline read models, the runner's
 * batches it waits for), so its commit record is at or below the flush position; only where the
 * operator turned `synchronous_commit` off could a commit not yet be flushed, and the insert position
 * then covers it (a standby reaches it a moment later, after the WAL writer's next flush). A host that
 * is read-only (a primary draining in a switchover) gives none: a new primary may be acknowledging
 * writes it will never see. A standby's own (in recovery) fails the query.
 */
const PRIMARY_POSITION_SQL = `SELECT CASE WHEN current_setting('transaction_read_only') = 'on' THEN NULL
  WHEN current_setting('synchronous_commit') = 'off' THEN pg_current_wal_insert_lsn()::text
  ELSE pg_current_wal_flush_lsn()::text END AS lsn`;

/** One public GET: the primary's position it must see, read once at its first read, and how long it may wait in all. */
class ReadSession {
  private position: Promise<bigint> | null = null;
  /** Set at the first read that asks a standby: the session's whole wait ends there. */
  deadline: number | null = null;
  /** Once a read of the session went to the primary, the later ones do too (never older than what it showed). */
  fellBack: ReplicaReadObserved['reason'] | null = null;

  target(ask: () => Promise<bigint>): Promise<bigint> {
    this.position ??= ask();
    return this.position;
  }
}

export interface ReplicaDocumentStoreOptions {
  /** The read models on the primary: every write, every read outside a GET's session, and the fallback. */
  primary: DocumentStore;
  /** The pool the primary store uses: its WAL position is read there. */
  primaryPool: Queryable;
  /** Connections on a standby (READ_REPLICA_URL, kept on one by its locator). */
  replicaPool: pg.Pool;
  schema: string;
  /** True while READ_REPLICA_URL's locator knows a standby (prefer-standby may have settled for the primary). */
  standbyKnown(): boolean;
  /** Asks READ_REPLICA_URL's locator again (it shares a round already running). */
  relocate(): void;
  logger: Logger;
  maxWaitMs?: number;
}

export interface ReplicaDocumentStore extends DocumentStore {
  /** Runs `work` (a public GET's handler) as one session: its reads may be served by a standby. */
  session<T>(work: () => T): T;
  /** Primary positions read so far (each shared by the GETs that began before it started). */
  readonly positionsRead: number;
}

type Reason = ReplicaReadObserved['reason'];

/**
 * Read models whose reads, inside a public GET's session (`session`), are served by a standby that has
 * replayed at least the primary's WAL position read after the GET began: so every write acknowledged
 * before the GET began is there (promise 2 of the high-availability spec; docs/architecture.md, "Reads
 * on standbys"). A standby behind is waited for (polled, `maxWaitMs` in all per GET), then the primary
 * serves; so does it on any standby error. The check and the read run on the same connection: a
 * standby restarted in between could accept connections while replaying from before the position.
 * Everything else (writes, checkpoints, change feeds, reads outside a session: API keys, the
 * invitation's 404) is the primary store's.
 */
export const createReplicaDocumentStore = (options: ReplicaDocumentStoreOptions): ReplicaDocumentStore => {
  const { primary, primaryPool, replicaPool, schema, logger } = options;
  const maxWaitMs = options.maxWaitMs ?? REPLICA_MAX_WAIT_MS;
  const sessions = new AsyncLocalStorage<ReadSession>();
  const position = new FreshQuery(async () => {
    const { rows } = await primaryPool.query<{ lsn: string | null }>(PRIMARY_POSITION_SQL);
    const lsn = rows[0]?.lsn;
    if (lsn === undefined || lsn === null) throw new Error('the primary gave no WAL position (it is read-only)');
    return parseLsn(lsn);
  });
  const standbyReplay = new StandbyReplay();
  /** Reads on each standby connection, made once per connection (the pool reuses them). */
  const readsOn = new WeakMap<pg.PoolClient, DocumentReads>();
  const table = (collection: string) => `${quoteIdent(schema)}.${quoteIdent(tableName(collection))}`;
  let pausedUntil = 0;
  let nextRelocate = 0;
  let timeoutsInARow = 0;
  /** Why reads go to the primary now, as last logged; null while the standby serves them. */
  let degraded: string | null = null;

  const read = async <T>(work: (reads: DocumentReads) => Promise<T>): Promise<T> => {
    const session = sessions.getStore();
    if (session === undefined) return work(primary);
    const started = performance.now();
    if (session.fellBack !== null) return fromPrimary(work, session.fellBack, started, null);
    if (!standbyAvailable()) return fromPrimary(work, 'no_standby', started, null, session);
    session.deadline ??= started + maxWaitMs;
    const deadline = session.deadline;
    let target: bigint;
    try {
      target = await session.target(() => position.ask());
    } catch {
      // The primary's trouble, not the standby's: the primary's own read says what it is.
      return fromPrimary(work, 'error', started, null, session);
    }
    let client: pg.PoolClient | null = null;
    let replay: Replay | null = null;
    try {
      client = await standbyReplay.connect(replicaPool, deadline);
      const reads = held(client);
      replay = await standbyReplay.until(client, target, deadline);
      if (replay.state === 'not_standby') {
        client.release();
        client = null;
        relocateSoon();
        return fromPrimary(work, 'no_standby', started, null, session);
      }
      timeoutsInARow = 0;
      if (replay.state === 'behind') {
        client.release();
        client = null;
        return fromPrimary(work, 'behind', started, replay.lagBytes, session);
      }
      const ready = performance.now();
      const result = await work(reads);
      client.release();
      client = null;
      recovered();
      reportReplicaRead({ servedBy: 'replica', reason: replay.waited ? 'waited' : 'caught_up', waitSeconds: (ready - started) / 1000, lagBytes: replay.lagBytes });
      return result;
    } catch (error) {
      // Its state is unknown (a statement may still be running): the connection is closed, not reused.
      client?.release(error instanceof Error ? error : new Error(String(error)));
      failed(error);
      return fromPrimary(work, error instanceof StandbyTimeout ? 'behind' : 'error', started, replay?.lagBytes ?? null, session);
    }
  };

  /** The reads on a standby connection just taken from the pool, made the first time the pool hands it out. */
  const held = (client: pg.PoolClient): DocumentReads => {
    let reads = readsOn.get(client);
    if (reads === undefined) {
      reads = postgresReads(client, table);
      // A connection cut while held (its host stopped being the standby) emits 'error', which the pool
      // only hears while it is idle: unheard it would end the process. The statement in flight fails on its own.
      client.on('error', () => undefined);
      readsOn.set(client, reads);
    }
    return reads;
  };

  const fromPrimary = <T>(
    work: (reads: DocumentReads) => Promise<T>, reason: Reason, started: number, lagBytes: number | null, session?: ReadSession,
  ): Promise<T> => {
    if (session !== undefined) session.fellBack = reason;
    reportReplicaRead({ servedBy: 'primary', reason, waitSeconds: (performance.now() - started) / 1000, lagBytes });
    return work(primary);
  };

  const standbyAvailable = (): boolean => {
    if (!options.standbyKnown()) {
      relocateSoon();
      degrade('no standby answers');
      return false;
    }
    return performance.now() >= pausedUntil;
  };

  const relocateSoon = (): void => {
    const now = performance.now();
    if (now < nextRelocate) return;
    nextRelocate = now + RELOCATE_EVERY_MS;
    options.relocate();
  };

  /** A connection error, or no answer within the bound several times in a row: the standby is left alone a moment. */
  const failed = (error: unknown): void => {
    if (error instanceof StandbyTimeout) {
      timeoutsInARow += 1;
      if (timeoutsInARow < TIMEOUTS_BEFORE_PAUSE) return;
    } else if (!isDatabaseConnectionError(error)) {
      // A read cancelled by a conflict with recovery (40001) is the standby doing its job; anything
      // else is no fault of the standby's (the primary's read says what it is): nothing to pause.
      return;
    }
    timeoutsInARow = 0;
    pausedUntil = performance.now() + PAUSE_AFTER_ERROR_MS;
    relocateSoon();
    degrade(error instanceof Error ? error.message : String(error));
  };

  const degrade = (reason: string): void => {
    if (degraded !== null) return;
    degraded = reason;
    logger.warn({ reason }, 'the read replica is unavailable: public reads are served by the primary; asking again every second');
  };

  const recovered = (): void => {
    if (degraded === null) return;
    degraded = null;
    logger.info('public reads are served by the read replica again');
  };

  return {
    // Called on the primary, not copied from it: a store's methods may live on its prototype.
    prepare: (collections, options) => primary.prepare(collections, options),
    applyBatch: (names, changes, checkpoint, options) => primary.applyBatch(names, changes, checkpoint, options),
    getForUpdate: (collection, ids) => primary.getForUpdate(collection, ids),
    watchChanges: (collection, onChange) => primary.watchChanges(collection, onChange),
    announce: (collections) => primary.announce?.(collections),
    checkpoints: (names) => primary.checkpoints(names),
    promoteRebuild: (input) => primary.promoteRebuild(input),
    get: (collection, id) => read((reads) => reads.get(collection, id)),
    getMany: (collection, ids) => read((reads) => reads.getMany(collection, ids)),
    find: (collection, query) => read((reads) => reads.find(collection, query)),
    findServed: (collection, query, render) => read((reads) => reads.findServed(collection, query, render)),
    count: (collection, where) => read((reads) => reads.count(collection, where)),
    // The pools are the caller's; the primary store is closed by whoever opened it.
    close: async () => undefined,
    session: (work) => sessions.run(new ReadSession(), work),
    get positionsRead() {
      return position.started;
    },
  };
};
