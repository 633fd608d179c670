import type { DomainEventType } from '#domain';
import type { RecordedDomainEvent } from './recorded-domain-event.js';

/** A btree index over top-level document fields (`id` is the document key), in the order queries sort. */
export interface OrderedIndex {
  kind: 'ordered';
  fields: readonly { field: string; direction: 'asc' | 'desc' }[];
}

/** An index answering `contains` conditions on an array field. */
export interface ContainsIndex {
  kind: 'contains';
  field: string;
}

export type IndexDefinition = OrderedIndex | ContainsIndex;

/** What a store needs to hold a read model: its collection name and the indexes its queries use. */
export interface CollectionDefinition {
  name: string;
  indexes: readonly IndexDefinition[];
  /**
   * The JSON the API serves for a document, stored beside it at every write so that reads send
   * it as is (no parse, no view mapping, no stringify). App-wide values are left as markers
   * (`APP_URL_MARK`) and filled in when served.
   */
  served?(doc: object): string;
  /** Writers announce every change to other processes (cached API keys must see a regeneration at once). */
  announceChanges?: boolean;
}

/**
 * A read model as a pure function of the log. The store adapter does every write; `evolve`
 * returning null deletes the document.
 */
export interface Projection<Doc extends object> extends CollectionDefinition {
  /** Read model name, also its collection name. */
  name: string;
  eventTypes: readonly DomainEventType[];
  /** Ids of the documents the event touches; each is evolved in turn. */
  documentIds(event: RecordedDomainEvent): string[];
  // Method syntax on purpose: it keeps `Projection<CandidateDocument>` assignable to `AnyProjection`.
  evolve(document: Doc | null, event: RecordedDomainEvent, documentId: string): Doc | null;
  served?(doc: Doc): string;
}

export type AnyProjection = Projection<object>;

export const handles = (projection: AnyProjection, type: string): boolean =>
  (projection.eventTypes as readonly string[]).includes(type);

export const ordered = (...fields: readonly (readonly [string, 'asc' | 'desc'])[]): OrderedIndex => ({
  kind: 'ordered',
  fields: fields.map(([field, direction]) => ({ field, direction })),
});
