/**
 * How a fold's state is kept as a snapshot (a cache of the fold up to a revision, never a source of
 * truth): a plain JSON value and back. Decoding then evolving the events after the snapshot must give
 * what folding the whole stream gives.
 */
export interface StateSnapshots<State> {
  /** Names the fold: snapshots of different folds of one stream never mix. */
  readonly name: string;
  /**
   * Bumped whenever the state's shape, the codec or what the fold makes of an event changes: a
   * snapshot of another version is ignored (the stream is folded in full, and snapshotted afresh).
   */
  readonly version: number;
  /**
   * The workspace the state belongs to: erasing anyone's personal data in it makes the snapshot
   * unreadable (it holds their clear address). Null: no snapshot is kept of this state.
   */
  scopeOf(state: State): string | null;
  /**
   * Takes the state without reading what a fold leaves unread (an invitation's names); the function
   * returned makes the JSON value, later and once, off the decision. Null: no snapshot is kept.
   */
  capture(state: State): (() => unknown) | null;
  /** Throws on a value it cannot read: the caller then folds the stream in full. */
  decode(value: unknown): State;
}
