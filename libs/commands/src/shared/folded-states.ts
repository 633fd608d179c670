import type { Logger } from 'pino';
import { isKnownEventType, shareState } from '#domain';
import type { EventStore } from '#event-store';
import { type FoldAt, FoldSnapshots } from './fold-snapshots.js';
import { StreamReads } from './stream-reads.js';
import type { Loaded } from './write-batch.js';

type Evolve<State, Event> = (state: State, event: Event) => State;
type AnyEvolve = (state: never, event: never) => unknown;

/** Streams whose folded state a process keeps, least recently used dropped first. */
const STATE_CACHE_SIZE = 20_000;
/** A prefetched load not taken by its decision within this long is dropped (see prefetch). */
const PREFETCH_TTL_MS = 5_000;
/** Prefetched loads kept at most (a burst of invitations to new addresses). */
const PREFETCH_MAX = 10_000;

/**
 * A stream holds an event this version cannot read: a newer version wrote it during a rolling
 * deploy. Folding past it would decide on a state that misses what it recorded (a withdrawal, a
 * closing), so the decision is refused (500 server_error, nothing appended) until a process of the
 * newer version takes the request; the followers of the log, which decide nothing, skip it instead.
 */
export class UnreadableStreamError extends Error {
  constructor(readonly streamId: string, readonly eventType: string, readonly revision: number) {
    super(`stream ${streamId} holds at revision ${revision} an event of type ${eventType}, unknown to this version: no decision is taken on it`);
    this.name = 'UnreadableStreamError';
  }
}

interface CachedFold extends FoldAt {
  evolve: AnyEvolve;
  /** When the store last confirmed this state (a read or this process's own commit), performance.now(). */
  checkedAt: number;
}

/**
 * The folded states of recently used streams, so that a decision reads and folds only the events
 * recorded since. Invariant: an entry at revision r is exactly the fold of the stream's events 0..r
 * as committed in the log. It is made only by folding events read from the log onto such an entry
 * (or a snapshot, or nothing), or by a batch whose append of its events onto the revision it read
 * committed. An entry may be behind the log (another lane or process appended since): every load
 * reads the events after it, so a stale entry costs a longer read, never a wrong decision, and the
 * append's expected revision catches any write in between. An entry never moves back to an older
 * revision. `peek` alone answers without reading, for fields an older state cannot get wrong.
 * Bounded: STATE_CACHE_SIZE streams; lent and borrowed states by the batches in flight; prefetched
 * loads by PREFETCH_TTL_MS and PREFETCH_MAX.
 */
export class FoldedStates {
  private readonly states = new Map<string, CachedFold>();
  /**
   * Committed states a batch took out of `states` to change in place (takeOwnership), until it
   * commits (back into `states`) or fails (dropped). Only `peek` reads them.
   */
  private readonly lent = new Map<string, CachedFold>();
  /** How many batches in flight hold each stream's state. */
  private readonly borrowers = new Map<string, number>();
  /** Loads started ahead of the decisions that will ask for them (see prefetch), oldest first. */
  private readonly prefetched = new Map<string, { evolve: unknown; loaded: Promise<Loaded<unknown>>; at: number }>();
  private readonly reads: StreamReads;
  private readonly snapshots: FoldSnapshots;

  constructor(store: EventStore, logger: Logger) {
    this.reads = new StreamReads(store);
    this.snapshots = new FoldSnapshots(store, logger);
  }

  /**
   * Folds a stream from the state last folded here (or its snapshot): only events recorded since
   * are read. Cached states are shared values (see shareState): folding onto one copies what it
   * changes, so a state handed out never changes under its reader.
   */
  async load<State, Event>(streamId: string, initial: () => State, evolve: Evolve<State, Event>): Promise<Loaded<State>> {
    const ahead = this.takePrefetched<State>(streamId, evolve);
    if (ahead !== undefined) {
      const loaded = await ahead.catch(() => null);
      // Unless this process has committed to the stream since (a prefetch is a read made a little earlier).
      const known = this.states.get(streamId);
      const newer = known !== undefined && loaded !== null && known.revision > (typeof loaded.revision === 'number' ? loaded.revision : -1);
      if (loaded !== null && !newer) return loaded;
    }
    const cached = this.states.get(streamId);
    const usable = cached !== undefined && cached.evolve === evolve ? cached : undefined;
    const snapshot = usable === undefined ? this.snapshots.read(streamId, evolve) : undefined;
    const start = usable ?? (snapshot && await snapshot);
    const events = await this.reads.since(streamId, start ? start.revision + 1 : 0);
    let state = start ? (start.state as State) : initial();
    for (const event of events) {
      if (!isKnownEventType(event.type)) throw new UnreadableStreamError(streamId, event.type, event.revision);
      state = evolve(state, { type: event.type, data: event.data } as Event);
    }
    const revision = events.at(-1)?.revision ?? start?.revision;
    if (revision === undefined) return { state, revision: 'no_stream' };
    this.remember(streamId, evolve, { revision, state, snapshotRevision: start?.snapshotRevision ?? -1 }, null);
    return { state, revision };
  }

  /** Several streams at once: started together, their reads meet in one `readStreams`. */
  async loadMany<State, Event>(streamIds: readonly string[], initial: () => State, evolve: Evolve<State, Event>): Promise<Map<string, Loaded<State>>> {
    return new Map(await Promise.all(streamIds.map(async (streamId) => [streamId, await this.load(streamId, initial, evolve)] as const)));
  }

  /**
   * Like `load`, but without a round trip whenever this process holds the stream's state: a state a
   * batch is changing in place right now is answered as it stands (possibly with decisions not yet
   * committed), a cached one as this process last read or wrote it, provided that was at most
   * `maxAgeMs` ago. Only for fields that neither can make wrong: an assessment's existence and
   * workspace, which never change once recorded, or settings where a second's delay is harmless.
   */
  peek<State, Event>(streamId: string, initial: () => State, evolve: Evolve<State, Event>, maxAgeMs: number): Promise<Loaded<State>> {
    const cached = this.states.get(streamId);
    const fresh = cached !== undefined && performance.now() - cached.checkedAt <= maxAgeMs ? cached : undefined;
    const held = this.lent.get(streamId) ?? fresh;
    if (held !== undefined && held.evolve === evolve) return Promise.resolve({ state: held.state as State, revision: held.revision });
    return this.load(streamId, initial, evolve);
  }

  /**
   * Starts loading streams that a decision about to be queued will load and no decision of this
   * process appends to (an invitation's address registries): concurrent requests' prefetches meet
   * in one read. The decision's load takes the result once (a retry reads again).
   */
  prefetch<State, Event>(streamIds: readonly string[], initial: () => State, evolve: Evolve<State, Event>): void {
    const now = performance.now();
    for (const [streamId, entry] of this.prefetched) {
      if (now - entry.at <= PREFETCH_TTL_MS && this.prefetched.size < PREFETCH_MAX) break;
      this.prefetched.delete(streamId);
    }
    for (const streamId of streamIds) {
      if (this.prefetched.has(streamId)) continue;
      const loaded = this.load(streamId, initial, evolve);
      // Whoever takes it sees the failure (and reads again); one never taken must not be unhandled.
      loaded.catch(() => undefined);
      this.prefetched.set(streamId, { evolve, loaded: loaded as Promise<Loaded<unknown>>, at: now });
    }
  }

  private takePrefetched<State>(streamId: string, evolve: unknown): Promise<Loaded<State>> | undefined {
    const ahead = this.prefetched.get(streamId);
    if (ahead === undefined || ahead.evolve !== evolve) return undefined;
    this.prefetched.delete(streamId);
    return ahead.loaded as Promise<Loaded<State>>;
  }

  /** A batch holds a stream's state from its first load until it ends. */
  borrow(streamId: string): void {
    this.borrowers.set(streamId, (this.borrowers.get(streamId) ?? 0) + 1);
  }

  /**
   * A batch's first change to a stream would copy the state's records (the cached state is shared:
   * O(size of the assessment) per batch). When the batch is the only holder of that state and it is
   * the cached one, it takes it out of the cache and changes it in place instead: a later loader
   * folds the stream afresh (`peek` reads it as it stands), and the state comes back when the batch
   * commits (`committed`), or is dropped if it fails (`release`).
   */
  takeOwnership(streamId: string, state: unknown): boolean {
    const cached = this.states.get(streamId);
    if (cached === undefined || cached.state !== state || this.borrowers.get(streamId) !== 1) return false;
    this.states.delete(streamId);
    this.lent.set(streamId, cached);
    return true;
  }

  /**
   * A batch's append committed: the states it holds are the log's at these revisions. A snapshot due
   * is taken here, and written once the batch is `answered` (FoldSnapshots.takeIfDue); a load takes
   * none, so that a first decision after a restart is not held up by it.
   */
  committed(streamId: string, evolve: AnyEvolve, revision: number, state: unknown, answered: Promise<unknown>): void {
    this.remember(streamId, evolve, { revision, state, snapshotRevision: -1 }, answered);
  }

  /** A batch ended: what it still holds lent never committed and goes. */
  release(owned: Iterable<string>, borrowed: Iterable<string>): void {
    for (const streamId of owned) this.lent.delete(streamId);
    for (const streamId of borrowed) {
      const count = (this.borrowers.get(streamId) ?? 1) - 1;
      if (count <= 0) this.borrowers.delete(streamId);
      else this.borrowers.set(streamId, count);
    }
  }

  /** The snapshot writes queued so far, done (before the store closes). */
  flushSnapshots(): Promise<void> {
    return this.snapshots.flush();
  }

  private remember(streamId: string, evolve: AnyEvolve, fold: FoldAt, answered: Promise<unknown> | null): void {
    const lent = this.lent.get(streamId);
    this.lent.delete(streamId);
    const known = this.states.get(streamId);
    // Never back to an older revision (another lane cached a newer state of a stream this batch only read).
    if (known !== undefined && known.evolve === evolve && known.revision > fold.revision) return;
    const snapshotRevision = Math.max(fold.snapshotRevision, known?.evolve === evolve ? known.snapshotRevision : -1, lent?.evolve === evolve ? lent.snapshotRevision : -1);
    const entry: CachedFold = { revision: fold.revision, state: fold.state, snapshotRevision, evolve, checkedAt: performance.now() };
    if (answered !== null) entry.snapshotRevision = this.snapshots.takeIfDue(streamId, evolve, entry, answered);
    shareState(entry.state);
    this.states.delete(streamId);
    this.states.set(streamId, entry);
    if (this.states.size > STATE_CACHE_SIZE) {
      const oldest = this.states.keys().next().value;
      if (oldest !== undefined) this.states.delete(oldest);
    }
  }
}
