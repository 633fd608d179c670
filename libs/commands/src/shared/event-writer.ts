import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { type StateSnapshots, assessmentSnapshots, evolveAssessment, shareState } from '#domain';
import { type EventStore, type RecordedEvent, WrongExpectedRevisionError } from '#event-store';
import type { Clock } from '#platform';
import type { ServiceConfig } from '#platform';
import type { CommittedWrite, ReadSideWaiter } from './ports.js';
import { CLOCK, CONFIG, EVENT_STORE, LOGGER, READ_SIDE } from './tokens.js';
import { type CommittedStates, type Loaded, WriteBatch } from './write-batch.js';

export type { DomainAppend, Loaded } from './write-batch.js';
export { assertStorable } from './assert-storable.js';

const MAX_ATTEMPTS = 12;
const MAX_DECISIONS_PER_BATCH = 32;
const STATE_CACHE_SIZE = 20_000;
/** A prefetched load not taken by its decision within this long is dropped (see prefetch). */
const PREFETCH_TTL_MS = 5_000;
/**
 * A fold is snapshotted once it has this many events beyond its last snapshot, and at least an
 * eighth of its stream: a restart then folds at most that tail, and encoding (linear in the state)
 * costs a constant per event however long the stream grows.
 */
const SNAPSHOT_MIN_EVENTS = 100;
const SNAPSHOT_TAIL_SHARE = 8;

/** The folds whose states are kept as snapshots, by their evolve function (the cache's key too). */
const SNAPSHOTTED: ReadonlyMap<unknown, StateSnapshots<never>> = new Map<unknown, StateSnapshots<never>>([[evolveAssessment, assessmentSnapshots as StateSnapshots<never>]]);

interface StateCache {
  revision: number;
  state: unknown;
  evolve: (state: never, event: never) => unknown;
  /** When the store last confirmed this state (a read or this process's own commit), performance.now(). */
  checkedAt?: number;
  /** Revision of the stream's newest snapshot this process knows of (read or written), -1 for none. */
  snapshotRevision?: number;
}

export interface EventWriterOptions {
  /**
   * This process is the only writer of the store (the embedded store: its DATA_DIR admits one
   * process), so a cached state is current and a decision need not read the stream again. A conflict
   * still drops the cached states of the streams involved, should something else have appended.
   */
  exclusiveWriter?: boolean;
}

/** One decision waiting for its turn on a stream; `tries` counts conflicts it went through. */
interface Job {
  attempt: (batch: WriteBatch) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  tries: number;
}

/**
 * The write path every command handler shares: load, decide, append, settle. Decisions on one
 * stream queue in this process (no conflict storm among 50 requests on one assessment), and those
 * that queued while a batch was being written are decided together, one after another, and
 * appended in ONE transaction (group commit): the cost of the round trips and the commit is shared.
 * A conflict with another process re-decides the whole batch. The answer waits for the read side.
 */
@Injectable()
export class EventWriter implements CommittedStates {
  private readonly lanes = new Map<string, Job[]>();
  /** Least recently used first: committed states by stream, so a decision reads only the new events. */
  private readonly states = new Map<string, StateCache>();
  /**
   * Committed states a batch took out of the cache to change in place (see takeOwnership), until
   * it commits (back into `states`) or fails (dropped). Only `peek` reads them.
   */
  private readonly lent = new Map<string, StateCache>();
  /** How many batches in flight hold each stream's state. */
  private readonly borrowers = new Map<string, number>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(READ_SIDE) private readonly readSide: ReadSideWaiter,
    @Inject(CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly options: EventWriterOptions = {},
  ) {}

  now(): Promise<string> {
    return this.clock.now();
  }

  /**
   * Folds a stream, starting from the state this process last folded it to: only events recorded
   * since are read. Cached states are shared values (see shareState): folding onto one copies what
   * it changes, so a state handed out never changes under its reader.
   */
  async loadCommitted<State, Event>(streamId: string, initial: () => State, evolve: (state: State, event: Event) => State): Promise<Loaded<State>> {
    const ahead = this.prefetched.get(streamId);
    if (ahead !== undefined && ahead.evolve === evolve) {
      this.prefetched.delete(streamId);
      const loaded = await (ahead.loaded as Promise<Loaded<State>>).catch(() => null);
      // Unless this process has committed to the stream since (a prefetch is a read made a little earlier).
      const known = this.states.get(streamId);
      const newer = known !== undefined && loaded !== null && known.revision > (typeof loaded.revision === 'number' ? loaded.revision : -1);
      if (loaded !== null && !newer) return loaded;
    }
    const cached = this.states.get(streamId);
    const usable = cached && cached.evolve === evolve ? cached : undefined;
    if (usable && this.options.exclusiveWriter) return { state: usable.state as State, revision: usable.revision };
    const snapshot = usable === undefined ? this.fromSnapshot(streamId, evolve) : undefined;
    const start = usable ?? (snapshot && await snapshot);
    const events = await this.readSince(streamId, start ? start.revision + 1 : 0);
    let state = start ? (start.state as State) : initial();
    for (const event of events) state = evolve(state, { type: event.type, data: event.data } as Event);
    const revision = events.at(-1)?.revision ?? start?.revision;
    if (revision === undefined) return { state, revision: 'no_stream' };
    this.remember(streamId, { revision, state, evolve: evolve as StateCache['evolve'], snapshotRevision: start?.snapshotRevision ?? -1 });
    return { state, revision };
  }

  /**
   * Several streams at once: started together, their reads meet in one `readStreams` where the store
   * allows it (see readSince), cached or not.
   */
  async loadCommittedMany<State, Event>(streamIds: readonly string[], initial: () => State, evolve: (state: State, event: Event) => State): Promise<Map<string, Loaded<State>>> {
    const loaded = await Promise.all(streamIds.map(async (streamId) => [streamId, await this.loadCommitted(streamId, initial, evolve)] as const));
    return new Map(loaded);
  }

  /**
   * The stream's snapshot of this fold, decoded, where the fold is snapshotted and the store keeps
   * one that this code can read (same codec version); otherwise undefined, and the stream is folded from its start.
   */
  private fromSnapshot<State, Event>(streamId: string, evolve: (state: State, event: Event) => State): Promise<StateCache | undefined> | undefined {
    const codec = SNAPSHOTTED.get(evolve);
    const read = this.store.readSnapshot?.bind(this.store);
    // Answered at once (no promise) otherwise: reads of one decision's loads must meet in one turn (readSince).
    if (codec === undefined || read === undefined) return undefined;
    return read(streamId, codec.name).then((snapshot) => {
      if (snapshot === null || snapshot.version !== codec.version) return undefined;
      return { revision: snapshot.revision, state: codec.decode(snapshot.value as never), evolve: evolve as StateCache['evolve'], snapshotRevision: snapshot.revision };
    }).catch((error: unknown) => {
      // A snapshot is a cache: any trouble with it means folding the stream in full, as without one.
      this.logger.warn({ err: error, streamId, fold: codec.name }, 'snapshot not usable; folding the stream from its start');
      return undefined;
    });
  }

  /**
   * Stream reads asked for in one turn of the event loop (the loads of a decision started together)
   * go to the store as ONE `readStreams`, each from its own revision, where the adapter has it.
   */
  private readSince(streamId: string, fromRevision: number): Promise<RecordedEvent[]> {
    if (this.store.readStreams === undefined) return this.readOne(streamId, fromRevision);
    return new Promise((resolve, reject) => {
      const first = this.pendingReads.length === 0;
      this.pendingReads.push({ streamId, fromRevision, resolve, reject });
      if (first) queueMicrotask(() => void this.flushReads());
    });
  }

  private pendingReads: { streamId: string; fromRevision: number; resolve: (events: RecordedEvent[]) => void; reject: (error: unknown) => void }[] = [];

  private async flushReads(): Promise<void> {
    const reads = this.pendingReads;
    this.pendingReads = [];
    const fromRevisions = new Map<string, number>();
    for (const { streamId, fromRevision } of reads) fromRevisions.set(streamId, Math.min(fromRevision, fromRevisions.get(streamId) ?? fromRevision));
    try {
      const read = reads.length === 1 && reads[0] !== undefined
        ? new Map([[reads[0].streamId, await this.readOne(reads[0].streamId, reads[0].fromRevision)]])
        : await (this.store.readStreams as NonNullable<EventStore['readStreams']>)([...fromRevisions.keys()], { fromRevisions });
      for (const { streamId, fromRevision, resolve } of reads) resolve((read.get(streamId) ?? []).filter((event) => event.revision >= fromRevision));
    } catch (error) {
      if (reads.length === 1) for (const { reject } of reads) reject(error);
      // Reads of other decisions came along: each is tried alone, so only the one at fault fails.
      else for (const { streamId, fromRevision, resolve, reject } of reads) {
        this.readOne(streamId, fromRevision).then(resolve, reject);
      }
    }
  }

  private readOne(streamId: string, fromRevision: number): Promise<RecordedEvent[]> {
    return this.store.readStream(streamId, fromRevision > 0 ? { fromRevision } : undefined);
  }

  /**
   * A committed state outside any decision (lookups before deciding, messaging wiring). Read it at
   * once and keep nothing: a batch may later take this very state over and change it in place.
   */
  load<State, Event>(streamId: string, initial: () => State, evolve: (state: State, event: Event) => State): Promise<Loaded<State>> {
    return this.loadCommitted(streamId, initial, evolve);
  }

  /**
   * Like `load`, but without a round trip whenever this process holds the stream's state: a state a
   * batch is changing in place right now is answered as it stands (possibly with decisions not yet
   * committed), a cached one as this process last read or wrote it, provided that was at most
   * `maxAgeMs` ago where other processes may write to the store (the embedded store has none). Only
   * for fields that neither can make wrong: an assessment's existence and workspace, which never
   * change once recorded, or settings where a second's delay is harmless. Read it at once, keep nothing.
   */
  peek<State, Event>(streamId: string, initial: () => State, evolve: (state: State, event: Event) => State, maxAgeMs = Number.POSITIVE_INFINITY): Promise<Loaded<State>> {
    const lent = this.lent.get(streamId);
    const cached = this.states.get(streamId);
    const fresh = cached !== undefined && (this.options.exclusiveWriter === true || performance.now() - (cached.checkedAt ?? 0) <= maxAgeMs) ? cached : undefined;
    const held = lent ?? fresh;
    if (held !== undefined && held.evolve === evolve) return Promise.resolve({ state: held.state as State, revision: held.revision });
    return this.loadCommitted(streamId, initial, evolve);
  }

  /** A batch holds a stream's state from its first load until it ends. */
  borrow(streamId: string): void {
    this.borrowers.set(streamId, (this.borrowers.get(streamId) ?? 0) + 1);
  }

  giveBack(streamIds: Iterable<string>): void {
    for (const streamId of streamIds) {
      const count = (this.borrowers.get(streamId) ?? 1) - 1;
      if (count <= 0) this.borrowers.delete(streamId);
      else this.borrowers.set(streamId, count);
    }
  }

  /**
   * A batch's first change to a stream would copy the state's records (the cached state is shared:
   * O(size of the assessment) per batch). When the batch is the only holder of that state and it is
   * the cached one, the batch takes it out of the cache and changes it in place instead: a later
   * loader folds the stream afresh (or, for `peek`, reads it as it stands), and the state comes back
   * into the cache when the batch commits, or is dropped if it fails.
   */
  takeOwnership(streamId: string, state: unknown): boolean {
    const cached = this.states.get(streamId);
    if (cached === undefined || cached.state !== state || this.borrowers.get(streamId) !== 1) return false;
    this.states.delete(streamId);
    this.lent.set(streamId, cached);
    return true;
  }

  /** Loads started ahead of the decisions that will ask for them (see prefetch), by stream, oldest first. */
  private readonly prefetched = new Map<string, { evolve: unknown; loaded: Promise<Loaded<unknown>>; at: number }>();

  /**
   * Starts loading streams that a decision about to be queued will load and no decision of this
   * process appends to (an invitation's address registries): concurrent requests' prefetches meet
   * in one read, and a decision waiting in its stream's lane finds its streams read instead of
   * reading them one decision after another. The decision's load takes the result once (a retry
   * reads again); one not taken within PREFETCH_TTL_MS is dropped.
   */
  prefetch<State, Event>(streamIds: readonly string[], initial: () => State, evolve: (state: State, event: Event) => State): void {
    const now = performance.now();
    for (const [streamId, entry] of this.prefetched) {
      if (now - entry.at <= PREFETCH_TTL_MS) break;
      this.prefetched.delete(streamId);
    }
    for (const streamId of streamIds) {
      if (this.prefetched.has(streamId)) continue;
      const loaded = this.loadCommitted(streamId, initial, evolve);
      // Whoever takes it sees the failure (and reads again); one never taken must not be unhandled.
      loaded.catch(() => undefined);
      this.prefetched.set(streamId, { evolve, loaded: loaded as Promise<Loaded<unknown>>, at: now });
    }
  }

  /** Passes the store the hint that events about these people are coming (see EventStore.expectPeople). */
  expectPeople(people: readonly { workspaceId: string; email: string }[]): void {
    this.store.expectPeople?.(people);
  }

  readStream(streamId: string): Promise<RecordedEvent[]> {
    return this.store.readStream(streamId);
  }

  /**
   * Runs one decision: `attempt` loads through the batch, decides and records its events with
   * `batch.append`; the value it returns is answered once the events are appended and the read side
   * shows them. It may run more than once (after a conflict): it must not have other effects.
   */
  decide<T>(key: string, attempt: (batch: WriteBatch) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job: Job = { attempt, resolve: resolve as (value: unknown) => void, reject, tries: 0 };
      const lane = this.lanes.get(key);
      if (lane !== undefined) {
        lane.push(job);
        return;
      }
      this.lanes.set(key, [job]);
      void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    const lane = this.lanes.get(key) ?? [];
    try {
      while (lane.length > 0) {
        const jobs = lane.splice(0, MAX_DECISIONS_PER_BATCH);
        lane.unshift(...(await this.runBatch(jobs)));
      }
    } catch (error) {
      for (const job of lane.splice(0)) job.reject(error);
    } finally {
      this.lanes.delete(key);
    }
  }

  /** Decides and appends the jobs; returns those that must wait for the next batch. */
  private async runBatch(jobs: Job[]): Promise<Job[]> {
    const batch = new WriteBatch(this);
    try {
      return await this.decideAndAppend(batch, jobs);
    } finally {
      // Committed states went back into the cache; what is still lent holds changes that never committed.
      for (const streamId of batch.owned) this.lent.delete(streamId);
      this.giveBack(batch.borrowed);
    }
  }

  private async decideAndAppend(batch: WriteBatch, jobs: Job[]): Promise<Job[]> {
    const decided: { job: Job; value: unknown }[] = [];
    const deferred: Job[] = [];
    for (const job of jobs) {
      try {
        const value = await job.attempt(batch);
        batch.accept();
        decided.push({ job, value });
      } catch (error) {
        batch.discard();
        if (error instanceof WrongExpectedRevisionError && job.tries < MAX_ATTEMPTS) {
          job.tries += 1;
          deferred.push(job);
        } else job.reject(error);
      }
    }
    const appends = batch.appends();
    let position: bigint | null = null;
    let write: CommittedWrite | undefined;
    if (appends.length > 0) {
      try {
        const result = await this.store.appendToStreams(appends);
        position = result.position;
        write = { inline: result.inline ?? [], events: appends.flatMap((append) => append.events) };
      } catch (error) {
        // The states this batch read may be stale (another writer): read them afresh next time.
        if (error instanceof WrongExpectedRevisionError) for (const streamId of batch.streams.keys()) this.states.delete(streamId);
        return this.afterFailedAppend(error, decided.map(({ job }) => job), deferred);
      }
      for (const committed of batch.committedStates()) {
        if (typeof committed.revision === 'number') this.remember(committed.streamId, { revision: committed.revision, state: committed.state, evolve: committed.evolve });
      }
    }
    // The next batch is decided while this one waits for the read side.
    void this.settle(position, write).then(() => {
      for (const { job, value } of decided) job.resolve(value);
    });
    return deferred;
  }

  private async afterFailedAppend(error: unknown, decided: Job[], deferred: Job[]): Promise<Job[]> {
    if (error instanceof WrongExpectedRevisionError) {
      const retry = decided.filter((job) => {
        job.tries += 1;
        if (job.tries < MAX_ATTEMPTS) return true;
        job.reject(error);
        return false;
      });
      this.logger.debug({ streamId: error.streamId, decisions: retry.length }, 'append conflict, deciding again');
      const tries = Math.max(1, ...retry.map((job) => job.tries));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * tries));
      return [...retry, ...deferred];
    }
    // Not a conflict: decide them one by one, so that only the decision at fault fails.
    if (decided.length > 1) {
      for (const job of decided) deferred.push(...(await this.runBatch([job])));
      return deferred;
    }
    for (const job of decided) job.reject(error);
    return deferred;
  }

  private remember(streamId: string, entry: StateCache): void {
    const lent = this.lent.get(streamId);
    this.lent.delete(streamId);
    // Another lane may have cached a newer state of a stream this batch only read: keep the newer.
    const known = this.states.get(streamId);
    if (known !== undefined && known.evolve === entry.evolve && known.revision > entry.revision) return;
    entry.snapshotRevision ??= Math.max(known?.evolve === entry.evolve ? known.snapshotRevision ?? -1 : -1, lent?.evolve === entry.evolve ? lent.snapshotRevision ?? -1 : -1);
    this.snapshotIfDue(streamId, entry);
    entry.checkedAt = performance.now();
    shareState(entry.state);
    this.states.delete(streamId);
    this.states.set(streamId, entry);
    if (this.states.size > STATE_CACHE_SIZE) {
      const oldest = this.states.keys().next().value;
      if (oldest !== undefined) this.states.delete(oldest);
    }
  }

  private snapshotWrites: Promise<void> = Promise.resolve();

  /**
   * Encodes the state now (it is exactly at entry.revision now; a batch may change it in place
   * later) when its tail beyond the last snapshot is long enough, and writes it after the writes
   * already queued. A failed write costs nothing but a longer fold after the next restart.
   */
  private snapshotIfDue(streamId: string, entry: StateCache): void {
    const codec = SNAPSHOTTED.get(entry.evolve);
    const write = this.store.writeSnapshot?.bind(this.store);
    if (codec === undefined || write === undefined) return;
    const taken = entry.snapshotRevision ?? -1;
    if (entry.revision - taken < Math.max(SNAPSHOT_MIN_EVENTS, entry.revision / SNAPSHOT_TAIL_SHARE)) return;
    const scope = codec.scopeOf(entry.state as never);
    if (scope === null) return;
    let value: unknown;
    try {
      value = codec.encode(entry.state as never);
    } catch (error) {
      this.logger.warn({ err: error, streamId, fold: codec.name }, 'state not snapshotted');
      return;
    }
    entry.snapshotRevision = entry.revision;
    const snapshot = { revision: entry.revision, version: codec.version, value, scope, takenAt: Date.now() };
    this.snapshotWrites = this.snapshotWrites
      .then(() => write(streamId, codec.name, snapshot))
      .catch((error: unknown) => this.logger.warn({ err: error, streamId, fold: codec.name, revision: entry.revision }, 'snapshot not written'));
  }

  /** The snapshot writes queued so far, done (before the store closes). */
  flushSnapshots(): Promise<void> {
    return this.snapshotWrites;
  }

  /**
   * Read-your-writes: answer only once the read models show the write (bounded wait). Where they
   * were updated in the append transaction (inline), they already do, and nothing is waited for.
   */
  private async settle(position: bigint | null, write: CommittedWrite | undefined): Promise<void> {
    if (position === null) return;
    const caughtUp = await this.readSide.waitForPosition(position, this.config.readYourWritesTimeoutMs, write).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'waiting for the read side failed; answering anyway');
      return true;
    });
    if (!caughtUp) this.logger.warn({ position: position.toString() }, 'read side did not catch up in time; answering anyway');
  }
}
