import type { DocumentQuery, DocumentStore, FieldValue } from './document-store.port.js';

/** A keyset page: `next` holds the orderBy values of the last row when more rows follow, else null. */
export interface Page<Doc> {
  items: Doc[];
  next: FieldValue[] | null;
}

/**
 * Reads one row more than asked to know whether another page exists, so the last page never
 * hands out a cursor that leads to an empty page.
 */
export const findPage = async <Doc extends object>(
  store: DocumentStore,
  collection: string,
  query: DocumentQuery,
  keyOf: (doc: Doc) => FieldValue[],
): Promise<Page<Doc>> => {
  const rows = await store.find<Doc>(collection, { ...query, limit: query.limit + 1 });
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return { items, next: rows.length > query.limit && last !== undefined ? keyOf(last) : null };
};
