import type { Logger } from 'pino';
import { isKnownEventType } from '#domain';
import type { EventStore } from '#event-store';
import { type FoldAt, FoldSnapshots } from './fold-snapshots.js';
import type { StreamFold } from './folds.js';
import { StreamReads } from './stream-reads.js';

/** Streams whose folded state a process keeps, least recently used dropped first. */
const STATE_CACHE_SIZE = 20_000;

/**
 * A stream holds an event of a newer version (rolling deploy). Folding past it would decide on a
 * state missing what it recorded, so the decision is refused (500 server_error, nothing appended);
 * the followers of the log, which decide nothing, skip it instead.
 */
export class UnreadableStreamError extends Error {
  constructor(readonly streamId: string, readonly eventType: string, readonly revision: number) {
    super(`stream ${streamId} holds at revision ${revision} an event of type ${eventType}, unknown to this version: no decision is taken on it`);
    this.name = 'UnreadableStreamError';
  }
}

/** A stream's state as the log holds it at `revision` (-1: the stream does not exist). */
export interface Folded<State> {
  state: State;
  revision: number;
}

interface Entry extends FoldAt<unknown> {
  fold: string;
}

/**
 * The folded states of recently used streams, so a load folds only the events recorded since.
 * Invariant: an entry at revision r is exactly the fold of the stream's committed events 0..r: it is
 * made only by folding events read from the log onto such an entry (or a snapshot, or nothing), or
 * by `committed` after an append onto the revision read. States never change: readers may share one.
 * Every load reads the events after the entry, so one behind the log costs a longer read, never a
 * wrong decision (the expected revision catches a write in between); no invalidation is needed. An
 * entry never moves back; a fold of another name never uses it; LRU-bounded by STATE_CACHE_SIZE.
 */
export class StateCache {
  private readonly entries = new Map<string, Entry>();
  private readonly reads: StreamReads;
  private readonly snapshots: FoldSnapshots;

  constructor(store: EventStore, logger: Logger) {
    this.reads = new StreamReads(store);
    this.snapshots = new FoldSnapshots(store, logger);
  }

  async load<State, Event>(streamId: string, fold: StreamFold<State, Event>): Promise<Folded<State>> {
    const cached = this.entries.get(streamId);
    const usable = cached?.fold === fold.name ? (cached as FoldAt<State>) : undefined;
    // Not awaited unless there is one to read: the loads of one decision reach `since` in one turn.
    const snapshot = usable === undefined ? this.snapshots.read(streamId, fold as StreamFold<State, never>) : undefined;
    const start = usable ?? (snapshot && (await snapshot));
    const events = await this.reads.since(streamId, start ? start.revision + 1 : 0);
    const unreadable = events.find((event) => !isKnownEventType(event.type));
    if (unreadable !== undefined) throw new UnreadableStreamError(streamId, unreadable.type, unreadable.revision);
    const domainEvents = events.map((event) => ({ type: event.type, data: event.data }) as Event);
    const initial = start ? start.state : fold.initial();
    const state = fold.foldAll ? fold.foldAll(initial, domainEvents) : domainEvents.reduce(fold.evolve, initial);
    const revision = events.at(-1)?.revision ?? start?.revision ?? -1;
    if (revision >= 0) this.remember(streamId, fold.name, { revision, state, snapshotRevision: start?.snapshotRevision ?? -1 });
    return { state, revision };
  }

  /** An append onto the revision read committed: `state` is the log's at `revision`; a snapshot due waits for `answered`. */
  committed<State>(streamId: string, fold: StreamFold<State, never>, revision: number, state: State, answered: Promise<unknown> = Promise.resolve()): void {
    const known = this.entries.get(streamId);
    const snapshotRevision = known?.fold === fold.name ? known.snapshotRevision : -1;
    const at = { revision, state, snapshotRevision };
    at.snapshotRevision = this.snapshots.takeIfDue(streamId, fold, at, answered);
    this.remember(streamId, fold.name, at);
  }

  /** The snapshot writes queued so far, done (before the store closes). */
  flushSnapshots(): Promise<void> {
    return this.snapshots.flush();
  }

  private remember(streamId: string, fold: string, at: FoldAt<unknown>): void {
    const known = this.entries.get(streamId);
    if (known !== undefined && known.fold === fold && known.revision > at.revision) return;
    this.entries.delete(streamId);
    this.entries.set(streamId, { ...at, fold, snapshotRevision: Math.max(at.snapshotRevision, known?.fold === fold ? known.snapshotRevision : -1) });
    if (this.entries.size > STATE_CACHE_SIZE) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
