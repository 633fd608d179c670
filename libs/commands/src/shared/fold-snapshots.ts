import type { Logger } from 'pino';
import { type StateSnapshots, assessmentSnapshots, evolveAssessment } from '#domain';
import type { EventStore } from '#event-store';

/**
 * A fold is snapshotted once it has this many events beyond its last snapshot, and at least an
 * eighth of its stream: a restart then folds at most that tail, and encoding (linear in the state)
 * costs a constant per event however long the stream grows.
 */
const SNAPSHOT_MIN_EVENTS = 100;
const SNAPSHOT_TAIL_SHARE = 8;

/** The folds whose states are kept as snapshots, by their evolve function. */
const SNAPSHOTTED: ReadonlyMap<unknown, StateSnapshots<never>> = new Map<unknown, StateSnapshots<never>>([[evolveAssessment, assessmentSnapshots as StateSnapshots<never>]]);

/** A fold of a stream up to a revision, and the revision of the stream's newest snapshot known (-1: none). */
export interface FoldAt {
  revision: number;
  state: unknown;
  snapshotRevision: number;
}

/**
 * Snapshots of long folds (assessments): a cache of the fold stored beside the person keys, never a
 * source of truth. One that does not open, is of another codec version or whose key is gone is
 * ignored and the stream folded from its start (docs/architecture.md, "Snapshots of long folds").
 */
export class FoldSnapshots {
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly store: EventStore, private readonly logger: Logger) {}

  /**
   * The stream's snapshot of this fold, decoded; undefined when there is none this code can read.
   * Answered at once (no promise) for a fold that is not snapshotted: the reads of one decision's
   * loads must meet in one turn of the event loop (StreamReads).
   */
  read(streamId: string, evolve: unknown): Promise<FoldAt | undefined> | undefined {
    const codec = SNAPSHOTTED.get(evolve);
    const read = this.store.readSnapshot?.bind(this.store);
    if (codec === undefined || read === undefined) return undefined;
    return read(streamId, codec.name).then((snapshot) => {
      if (snapshot === null || snapshot.version !== codec.version) return undefined;
      return { revision: snapshot.revision, state: codec.decode(snapshot.value as never), snapshotRevision: snapshot.revision };
    }).catch((error: unknown) => {
      this.logger.warn({ err: error, streamId, fold: codec.name }, 'snapshot not usable; folding the stream from its start');
      return undefined;
    });
  }

  /**
   * Captures the state now (it is exactly at `fold.revision` now; a batch may change it in place
   * later) when its tail beyond the last snapshot is long enough, and makes and writes the snapshot
   * once `answered` has settled and the event loop has had a turn (the answer has gone), after the
   * writes already queued. Making it reads every invitation's names (for a state folded from the
   * log, each opened then) and the write is a statement on the store's connections (on the embedded
   * store, its only one): neither is the answer's business. Returns the revision of the newest
   * snapshot now known. A failure costs nothing but a longer fold after the next restart.
   */
  takeIfDue(streamId: string, evolve: unknown, fold: FoldAt, answered: Promise<unknown>): number {
    const codec = SNAPSHOTTED.get(evolve);
    const write = this.store.writeSnapshot?.bind(this.store);
    if (codec === undefined || write === undefined) return fold.snapshotRevision;
    if (fold.revision - fold.snapshotRevision < Math.max(SNAPSHOT_MIN_EVENTS, fold.revision / SNAPSHOT_TAIL_SHARE)) return fold.snapshotRevision;
    const scope = codec.scopeOf(fold.state as never);
    if (scope === null) return fold.snapshotRevision;
    let value: (() => unknown) | null;
    try {
      value = codec.capture(fold.state as never);
    } catch (error) {
      this.logger.warn({ err: error, streamId, fold: codec.name }, 'state not snapshotted');
      return fold.snapshotRevision;
    }
    if (value === null) return fold.snapshotRevision;
    const made = value;
    const takenAt = Date.now();
    this.writes = this.writes
      .then(() => answered)
      .then(() => new Promise((turn) => setImmediate(turn)))
      .then(() => write(streamId, codec.name, { revision: fold.revision, version: codec.version, value: made(), scope, takenAt }))
      .catch((error: unknown) => this.logger.warn({ err: error, streamId, fold: codec.name, revision: fold.revision }, 'snapshot not written'));
    return fold.revision;
  }

  /** The snapshot writes queued so far, done (before the store closes). */
  flush(): Promise<void> {
    return this.writes;
  }
}
