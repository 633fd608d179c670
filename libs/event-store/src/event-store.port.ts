/**
 * The event store port. Shaped after EventStoreDB's model (streams with revisions, a global
 * `$all` log with positions, catch-up subscriptions) so that every adapter fits it unchanged.
 */

/** Metadata recorded with every event: who caused it, in answer to what, and when (domain clock). */
export interface EventMetadata {
  correlationId: string;
  causationId: string | null;
  /** API key id, or `internal` for the internal application, or `system`. */
  actor: string;
  requestId: string;
  /** ISO 8601 time of the domain clock when the command was decided. */
  time: string;
  /** The schema version of the event's data as written; omitted for version 1. Reads bring older versions up to date. */
  schemaVersion?: number;
}

export interface NewEvent<Type extends string = string, Data extends object = Record<string, unknown>> {
  /** UUID, unique across the store. */
  id: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
  /** Set by the integrity layer (integrity/): adapters record both exactly as given. */
  integrity?: IntegrityStamp;
}

/** The recorded time (decided before the insert, so the hash can cover it) and the chained hash. */
export interface IntegrityStamp {
  recordedAt: string;
  hash: string;
}

export interface RecordedEvent<Type extends string = string, Data extends object = Record<string, unknown>> {
  id: string;
  streamId: string;
  /** Counts from 0 within the stream. */
  revision: number;
  /** Global order across all streams; strictly increasing, gaps allowed. */
  position: bigint;
  type: Type;
  data: Data;
  metadata: EventMetadata;
  /** Wall-clock time the store recorded it (ISO 8601). */
  recordedAt: string;
  /** The event's link in its stream's hash chain (see integrity/); absent for events recorded without one. */
  hash?: string;
}

/** `no_stream`: the stream must not exist; `any`: no check; a number: the stream's current last revision. */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface StreamAppend {
  streamId: string;
  expectedRevision: ExpectedRevision;
  events: NewEvent[];
}

export interface AppendOptions {
  /**
   * SQL run in the append's own transaction after the insert (the personal-data layer's keys): it
   * commits with the events or not at all, and its error fails this caller's append only. Only where
   * the store says `runsStatements`.
   */
  statements?: readonly string[];
}

export interface AppendResult {
  /** Revision of the last event appended to the (last) stream. */
  nextRevision: number;
  /** Global position of the last event appended. */
  position: bigint;
  /** The inline projectors whose work committed in the append's transaction; absent or empty where none applied. */
  inline?: readonly string[];
}

/** An event on its way into the log, as an inline projector sees it before the insert. */
export interface PendingEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** Rows of one statement an inline step asked for, as the driver parsed them. */
export type InlineRows = readonly Record<string, unknown>[];

/** One statement of an inline step; the rows of the `name`d ones are handed back to `finish` by that name. */
export interface InlineStatement {
  readonly sql: string;
  readonly name?: string;
}

/** The rows of a step's statements of one name (several of one name: their rows one after another). */
export type InlineResults = (name: string) => InlineRows;

/**
 * What an inline projector adds to one append transaction. `statements` run after the append lock
 * and before the insert (its own locks, reads of what the events touch); `finish` gets the rows of
 * the named ones, the head of the log before this transaction and the events as recorded, and
 * returns the statements to run before COMMIT, or `null` when it must not apply this time (its
 * followers are behind and catch up from the log). Literal SQL, one statement each, no parameters.
 */
export interface InlineStep {
  readonly statements: readonly InlineStatement[];
  finish(rows: InlineResults, head: bigint | null, events: readonly RecordedEvent[]): { statements: readonly string[]; onCommitted?: () => void } | null;
}

/**
 * Work done inside the append transaction itself (as Marten's and Emmett's inline projections):
 * read models, an outbox. All or nothing with the events. Only adapters whose log shares a
 * transaction with SQL tables run them (PostgreSQL, PGlite); elsewhere the followers do it all.
 */
export interface InlineProjector {
  readonly name: string;
  /** Run once per connection before its first step there: PREPAREs of what its steps EXECUTE (names unique per schema). */
  readonly setup?: readonly string[];
  /** Events are in append order; values go into the statements quoted by `sqlLiteral`. */
  prepare(events: readonly PendingEvent[]): InlineStep;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`wrong expected revision on ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

export interface ReadStreamsOptions {
  /** Per stream, the first revision wanted (as readStream's fromRevision); streams not named are read whole. */
  fromRevisions?: ReadonlyMap<string, number>;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Omit or null to read from the start. */
  after?: bigint | null;
  maxCount: number;
  /**
   * Optional: the caller reads only position, id, stream, revision, type, data and `metadata.time` (a rebuild):
   * an adapter may leave `recordedAt` empty, the rest of `metadata` blank, `hash` absent (PostgreSQL, PGlite).
   */
  dataOnly?: boolean;
  /**
   * Optional, with `dataOnly`: the caller reads the data of these types only. An adapter may return
   * the others with empty data, id and time (PostgreSQL, PGlite); events, order and `maxCount` are as without it.
   */
  dataOfTypes?: readonly string[];
}

export type EventHandler = (event: RecordedEvent) => Promise<void>;

export interface SubscribeOptions {
  /** Exclusive checkpoint: the subscription hands over events strictly after it. */
  after: bigint | null;
  /** Called one event at a time, in global order; the next event waits for the returned promise. */
  handler: EventHandler;
  /** Called when the handler or the store fails; the subscription stops after it. */
  onError?: (error: unknown) => void;
  /**
   * Optional: the events about to be handed over, before the first of them, where the adapter reads
   * in batches (PostgreSQL, PGlite): a prefetch hint; the handler still gets each of them, in order.
   */
  onBatch?: (events: readonly RecordedEvent[]) => Promise<void>;
  /** Optional: called with the last position handed over once the subscription has caught up. */
  onCaughtUp?: (position: bigint | null) => void;
  /**
   * Optional, for a follower whose work usually commits inline with the appends: at the head it is
   * woken only while `wanted()` is true or by the `kick` handed to `onKick`, else at the poll
   * interval, so the log is still read in full. `skipTo`, asked before a read that follows an append
   * (not at every idle poll): a position up to which its work is committed inline, or null; the read
   * starts after it and the events up to it are never read. Adapters may ignore both.
   */
  catchUpOnly?: { wanted: () => boolean; onKick: (kick: () => void) => void; skipTo?: () => Promise<bigint | null> };
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface EventStore {
  /** Appends atomically to one stream with optimistic concurrency. Throws WrongExpectedRevisionError. */
  appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /** Appends to several streams (one decision over several boundaries), each with its expected revision: all or nothing. */
  appendToStreams(appends: StreamAppend[], options?: AppendOptions): Promise<AppendResult>;
  /** True where the adapter runs `AppendOptions.statements` (PostgreSQL, PGlite: the database of the person keys). */
  readonly runsStatements?: boolean;
  /** Events of one stream in revision order; [] when the stream does not exist. */
  readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]>;
  /** Optional: several streams in one read (PostgreSQL, PGlite), each in revision order, [] for a missing one. */
  readStreams?(streamIds: readonly string[], options?: ReadStreamsOptions): Promise<Map<string, RecordedEvent[]>>;
  /** Events of all streams in global order. A reader following positions never misses an event. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up subscription to all events, one at a time, in global order, with backpressure. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  /** Position of the last committed event, or null when the store is empty. */
  headPosition(): Promise<bigint | null>;
  /**
   * Optional: run these projectors inside every append transaction from now on (PostgreSQL, PGlite).
   * Layers that change events on the way in (personal data) hand them the events as the callers gave them.
   */
  useInlineProjectors?(projectors: readonly InlineProjector[]): void;
  /**
   * Optional (PostgreSQL, PGlite), run before serving so the first request does not pay for first runs and
   * compiling: the transaction `appendToStreams` would run (insert, statements, inline projectors), rolled
   * back, once on each connection the pool may hold. Nothing is kept in any layer; its positions are a gap.
   */
  rehearseAppend?(appends: StreamAppend[], options?: AppendOptions): Promise<void>;
  /**
   * Optional hint: events about these people (workspace, normalized address) are about to be appended;
   * a layer may ready their keys while the caller reads its streams. The append works the same without it.
   */
  expectPeople?(people: readonly { workspaceId: string; email: string }[]): void;
  /** Optional: snapshots of folds, a cache beside the log (StateSnapshots in #domain); null when none can be read. */
  readSnapshot?(streamId: string, fold: string): Promise<FoldSnapshotRead | null>;
  /**
   * Keeps a fold's snapshot; `scope` is the workspace whose erasures must make it unreadable, `takenAt`
   * when the state was encoded (epoch ms): a snapshot taken before an erasure in its scope is not kept.
   */
  writeSnapshot?(streamId: string, fold: string, snapshot: FoldSnapshotRead & { scope: string; takenAt: number }): Promise<void>;
  close(): Promise<void>;
}

/** `store.readStreams`, or readStream per stream where the adapter has none (a layer over any adapter). */
export const readStreamsOf = async (
  store: EventStore,
  streamIds: readonly string[],
  options?: ReadStreamsOptions,
): Promise<Map<string, RecordedEvent[]>> => {
  if (store.readStreams) return store.readStreams(streamIds, options);
  return new Map(await Promise.all(streamIds.map(async (streamId) => {
    const fromRevision = options?.fromRevisions?.get(streamId);
    return [streamId, await store.readStream(streamId, fromRevision === undefined ? undefined : { fromRevision })] as const;
  })));
};

/** A fold's state up to `revision` (inclusive), as its codec of `version` encoded it. */
export interface FoldSnapshotRead {
  revision: number;
  version: number;
  value: unknown;
}
