import type { Logger } from 'pino';
import type { EventStore } from '#event-store';
import type { StreamFold } from './folds.js';

/**
 * A fold is snapshotted once it has this many events beyond its last snapshot, and at least an
 * eighth of its stream: a restart then folds at most that tail, and encoding (linear in the state)
 * costs a constant per event however long the stream grows.
 */
const SNAPSHOT_MIN_EVENTS = 100;
const SNAPSHOT_TAIL_SHARE = 8;

/** A fold of a stream up to a revision, and the revision of the stream's newest snapshot known (-1: none). */
export interface FoldAt<State> {
  revision: number;
  state: State;
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
   * The stream's snapshot of this fold, decoded, or undefined. No promise for a fold not snapshotted:
   * one decision's loads must meet in one turn of the event loop (StreamReads).
   */
  read<State>(streamId: string, fold: StreamFold<State, never>): Promise<FoldAt<State> | undefined> | undefined {
    const codec = fold.snapshots;
    if (codec === undefined || this.store.readSnapshot === undefined) return undefined;
    return this.store.readSnapshot(streamId, codec.name).then((snapshot) => {
      if (snapshot === null || snapshot.version !== codec.version) return undefined;
      return { revision: snapshot.revision, state: codec.decode(snapshot.value), snapshotRevision: snapshot.revision };
    }).catch((error: unknown) => {
      this.logger.warn({ err: error, streamId, fold: codec.name }, 'snapshot not usable; folding the stream from its start');
      return undefined;
    });
  }

  /**
   * Writes a snapshot of a committed fold when its tail is long enough; answers the newest snapshot's
   * revision now known. States never change, so the value is encoded later: after the writes queued,
   * once `answered` settles and a turn after (answers must not wait for tens of ms of encoding), and
   * `takenAt` is now: an erasure in the workspace after it makes the store refuse the write. A
   * failure costs nothing but a longer fold after the next restart.
   */
  takeIfDue<State>(streamId: string, fold: StreamFold<State, never>, at: FoldAt<State>, answered: Promise<unknown> = Promise.resolve()): number {
    const codec = fold.snapshots;
    const store = this.store;
    if (codec === undefined || store.writeSnapshot === undefined) return at.snapshotRevision;
    if (at.revision - at.snapshotRevision < Math.max(SNAPSHOT_MIN_EVENTS, at.revision / SNAPSHOT_TAIL_SHARE)) return at.snapshotRevision;
    const scope = codec.scopeOf(at.state);
    if (scope === null) return at.snapshotRevision;
    const takenAt = Date.now();
    const after = answered.catch(() => undefined);
    this.writes = this.writes
      .then(() => after)
      .then(() => new Promise((turn) => setImmediate(turn)))
      .then(() => {
        const value = codec.capture(at.state)?.();
        if (value !== undefined) return store.writeSnapshot?.(streamId, codec.name, { revision: at.revision, version: codec.version, value, scope, takenAt });
      })
      .catch((error: unknown) => this.logger.warn({ err: error, streamId, fold: codec.name, revision: at.revision }, 'snapshot not written'));
    return at.revision;
  }

  /** The snapshot writes queued so far, done (before the store closes). */
  flush(): Promise<void> {
    return this.writes;
  }
}
