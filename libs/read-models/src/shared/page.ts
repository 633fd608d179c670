import type { DocumentQuery, DocumentStore, FieldValue, RenderServed } from './document-store.port.js';

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

/** A keyset page of rows as the API serves them (stored JSON text); `next` as in `Page`, `last` the orderBy values of the last row whether or not more follow. */
export interface ServedPage {
  rows: string[];
  next: string[] | null;
  last: readonly string[] | null;
}

/** `findPage` for the list endpoints: the same rows and cursor, as JSON text nobody parses. */
export const findServedPage = async (store: DocumentStore, collection: string, query: DocumentQuery, render: RenderServed): Promise<ServedPage> => {
  const found = await store.findServed(collection, { ...query, limit: query.limit + 1 }, render);
  const shown = found.length > query.limit ? found.slice(0, query.limit) : found;
  const last = shown.at(-1);
  return { rows: shown.map(({ json }) => json), next: found.length > query.limit && last !== undefined ? [...last.keys] : null, last: last?.keys ?? null };
};
