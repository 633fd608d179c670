import type pg from 'pg';
import { statementName } from '#event-store';
import type { Condition, DocumentQuery, RenderServed, ServedRow } from '../shared/document-store.port.js';
import { SqlParameters, selectSql, servedColumns, whereSql } from './postgres-sql.js';

/** A pool, or one connection taken from it: the reads below run on either. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/** The questions a query of the API asks the read models: what a standby can answer (replica-document.store.ts). */
export interface DocumentReads {
  get<Doc extends object>(collection: string, id: string): Promise<Doc | null>;
  getMany<Doc extends object>(collection: string, ids: readonly string[]): Promise<Map<string, Doc>>;
  find<Doc extends object>(collection: string, query: DocumentQuery): Promise<Doc[]>;
  findServed(collection: string, query: DocumentQuery, render: RenderServed): Promise<ServedRow[]>;
  count(collection: string, where: readonly Condition[]): Promise<number>;
}

/**
 * PostgreSQL text cannot hold U+0000, so no stored document has such a value: a lookup by one
 * matches nothing (instead of failing in the driver).
 */
export const unstorable = (value: unknown): boolean => typeof value === 'string' && value.includes('\u0000');
const matchesNothing = (condition: Condition): boolean => 'value' in condition && unstorable(condition.value);

/**
 * The read models' reads on `on` (a pool, or a connection held for a standby's check and its read),
 * `table` naming a collection's table. Page and lookup statements are named after their text: each
 * connection plans one once, not at every request.
 */
export const postgresReads = (on: Queryable, table: (collection: string) => string): DocumentReads => ({
  async get<Doc extends object>(collection: string, id: string): Promise<Doc | null> {
    if (unstorable(id)) return null;
    const text = `SELECT doc FROM ${table(collection)} WHERE id = $1`;
    const { rows } = await on.query<{ doc: Doc }>({ name: statementName('rm', text), text, values: [id] });
    return rows[0]?.doc ?? null;
  },

  async getMany<Doc extends object>(collection: string, ids: readonly string[]): Promise<Map<string, Doc>> {
    if (ids.length === 0) return new Map();
    const { rows } = await on.query<{ id: string; doc: Doc }>(`SELECT id, doc FROM ${table(collection)} WHERE id = ANY($1::text[])`, [ids]);
    return new Map(rows.map((row) => [row.id, row.doc]));
  },

  async find<Doc extends object>(collection: string, query: DocumentQuery): Promise<Doc[]> {
    if (query.where.some(matchesNothing)) return [];
    const { text, values } = selectSql(table(collection), query);
    const { rows } = await on.query<{ doc: Doc }>({ name: statementName('rm', text), text, values });
    return rows.map((row) => row.doc);
  },

  async findServed(collection: string, query: DocumentQuery, render: RenderServed): Promise<ServedRow[]> {
    if (query.where.some(matchesNothing)) return [];
    const { text, values } = selectSql(table(collection), query, servedColumns(query));
    // Arrays, not objects, per row; `json` is text, so the driver parses nothing but the rare fallback `doc`.
    const { rows } = await on.query<[string | null, object | null, ...(string | null)[]]>({ name: statementName('rm', text), text, values, rowMode: 'array' });
    return rows.map(([json, doc, ...keys]) => ({
      json: json ?? render(doc ?? {}),
      keys: keys.map((value) => value ?? ''),
    }));
  },

  async count(collection: string, where: readonly Condition[]): Promise<number> {
    if (where.some(matchesNothing)) return 0;
    const params = new SqlParameters();
    const { rows } = await on.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${table(collection)}${whereSql(where, params)}`, params.values);
    return rows[0]?.count ?? 0;
  },
});
