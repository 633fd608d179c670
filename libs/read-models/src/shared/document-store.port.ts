import type { CollectionDefinition } from './projection.js';

/** Scalars a condition compares with; fields the queries filter and sort on hold strings. */
export type FieldValue = string | number | boolean;

/**
 * Conditions on top-level document fields (`id` is the document key). `gte`/`lte` compare
 * strings byte-wise, which for `YYYY-MM-DDTHH:mm:ss.sssZ` times is time order.
 */
export type Condition =
  | { field: string; op: 'eq'; value: FieldValue }
  | { field: string; op: 'gte' | 'lte'; value: string }
  | { field: string; op: 'notNull' }
  | { field: string; op: 'contains'; value: FieldValue }
  /** The field equals one of `values` (at least one). */
  | { field: string; op: 'in'; values: readonly FieldValue[] };

export interface OrderBy {
  field: string;
  direction: 'asc' | 'desc';
}

export interface DocumentQuery {
  where: readonly Condition[];
  /** Sort fields must be non-null in the rows selected; end with `id` so the order is total. */
  orderBy: readonly OrderBy[];
  /** Keyset: the orderBy values of the last row seen; rows strictly after it are returned. */
  after?: readonly FieldValue[];
  /** Only for the original endpoint's page numbers; keyset is the rule everywhere else. */
  offset?: number;
  limit: number;
}

export interface DocumentChange {
  collection: string;
  id: string;
  /** null deletes the document. */
  doc: object | null;
  /**
   * Set by a rebuild on a document of a rebuilt collection it has never written before: no row
   * holds its id, so a store may add it without looking for one (a null doc then writes nothing).
   */
  firstWrite?: boolean;
}

/** A document with the checkpoint of the batch that last wrote it. */
export interface WrittenDocument {
  doc: object;
  position: bigint;
}

export interface ApplyBatchOptions {
  /**
   * The checkpoints the writer started its batch from (null: none yet). When the stored ones
   * differ, someone else moved them (a rebuild switched over, or another runner), the documents
   * the batch was evolved from are stale, and the batch is refused with CheckpointConflictError.
   */
  expectedCheckpoints?: ReadonlyMap<string, bigint | null>;
}

export class CheckpointConflictError extends Error {
  constructor(readonly projection: string, readonly expected: bigint | null, readonly actual: bigint | null) {
    super(`checkpoint of ${projection} moved: expected ${String(expected)}, found ${String(actual)}`);
    this.name = 'CheckpointConflictError';
  }
}

/** Throws CheckpointConflictError when a stored checkpoint is not the one the writer started from. */
export const assertCheckpointsUnchanged = (
  expected: ReadonlyMap<string, bigint | null>,
  stored: ReadonlyMap<string, bigint | null>,
): void => {
  for (const [name, position] of expected) {
    const actual = stored.get(name) ?? null;
    if (actual !== position) throw new CheckpointConflictError(name, position, actual);
  }
};

/** A row as the API serves it: its stored JSON text and its orderBy values (text), for the next cursor. */
export interface ServedRow {
  json: string;
  keys: readonly string[];
}

/** Renders a document as the API serves it; used where no stored JSON is at hand. */
export type RenderServed = (doc: object) => string;

/**
 * Tells a reader that a collection changed. `live` is false while changes could go unnoticed (a
 * lost LISTEN connection, a store without a change feed): a cache must then not be trusted.
 */
export interface ChangeWatch {
  readonly live: boolean;
  close(): void;
}

export interface PromoteRebuildInput {
  /** The live collections; each is replaced by its `rebuildCollectionName` twin. */
  collections: readonly CollectionDefinition[];
  /** Last changes to the rebuilt collections, written in the same switch-over. */
  changes: readonly DocumentChange[];
  /** Position the rebuilt collections reflect; becomes the checkpoint of every projection. */
  checkpoint: bigint | null;
}

export interface DocumentStore {
  /** Creates the collections, their indexes and the checkpoint table when missing; `fresh` empties them first. */
  prepare(collections: readonly CollectionDefinition[], options?: { fresh?: boolean }): Promise<void>;
  /**
   * Writes documents and moves the checkpoints of `projectionNames` up to `checkpoint`, atomically
   * where the store allows it. A checkpoint never moves back here. Each document written is
   * stamped with `checkpoint`: it holds every event up to there, so a writer never applies such an
   * event to it again, even where documents and checkpoints cannot be written atomically.
   */
  applyBatch(projectionNames: readonly string[], changes: readonly DocumentChange[], checkpoint: bigint, options?: ApplyBatchOptions): Promise<void>;
  get<Doc extends object>(collection: string, id: string): Promise<Doc | null>;
  /** The documents that exist among `ids`, by id. */
  getMany<Doc extends object>(collection: string, ids: readonly string[]): Promise<Map<string, Doc>>;
  /** For writers: the documents that exist among `ids`, each with the position it was written at. */
  getForUpdate(collection: string, ids: readonly string[]): Promise<Map<string, WrittenDocument>>;
  find<Doc extends object>(collection: string, query: DocumentQuery): Promise<Doc[]>;
  /**
   * The rows `find` would return, as the JSON text the API serves (kept beside the document where
   * the store can, else `render(doc)`), with their orderBy values: no document is parsed.
   */
  findServed(collection: string, query: DocumentQuery, render: RenderServed): Promise<ServedRow[]>;
  /**
   * Calls `onChange` after any writer, in any process, changed a collection declared with
   * `announceChanges`, and whenever the watch goes live or stops being live.
   */
  watchChanges(collection: string, onChange: () => void): ChangeWatch;
  /**
   * Optional: tells this process's watchers that collections changed through a writer outside the
   * store (the inline read models of an append transaction). Other processes learn it from the
   * store's own change feed (PostgreSQL's triggers), as for any write.
   */
  announce?(collections: readonly string[]): void;
  count(collection: string, where: readonly Condition[]): Promise<number>;
  checkpoints(projectionNames: readonly string[]): Promise<Map<string, bigint | null>>;
  /** Swaps rebuilt collections in for the live ones and sets their checkpoints, as one switch-over. */
  promoteRebuild(input: PromoteRebuildInput): Promise<void>;
  /**
   * Optional, for a rebuild: writes documents of rebuilt collections (`rebuildCollectionName`),
   * which nobody reads or writes before `promoteRebuild`, stamped with `position`; no checkpoint
   * moves and nothing is announced. Writes of different collections may run at once; those of
   * one collection apply in call order. Without it a rebuild writes with `applyBatch`.
   */
  loadRebuilt?(changes: readonly DocumentChange[], position: bigint): Promise<void>;
  close(): Promise<void>;
}

/** Where a rebuild writes before it switches over. */
export const rebuildCollectionName = (name: string): string => `${name}__rebuild`;

const COLLECTION_NAME = /^[a-z][a-z0-9-]*(__rebuild)?$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names end up in SQL and collection names: only a safe alphabet is accepted. */
export const assertCollectionName = (name: string): string => {
  if (!COLLECTION_NAME.test(name)) throw new Error(`invalid collection name: ${name}`);
  return name;
};

export const assertFieldName = (field: string): string => {
  if (!FIELD_NAME.test(field)) throw new Error(`invalid field name: ${field}`);
  return field;
};
