import { createHash } from 'node:crypto';
import { quoteIdent } from '#platform';
import type { Condition, DocumentQuery, FieldValue, OrderBy } from '../shared/document-store.port.js';
import { assertCollectionName, assertFieldName } from '../shared/document-store.port.js';
import type { CollectionDefinition, IndexDefinition } from '../shared/projection.js';

/** The advisory lock (hashtext of this key) every batch, switch-over, `prepare` and inline transaction of a schema's read models takes. */
export const readModelsLockKey = (schema: string): string => `read-models:${schema}`;

/** The NOTIFY channel of read-model changes; the payload is a `changeTopic`. */
export const CHANGES_CHANNEL = 'read_model_changes';

/** The collection a table's changes are announced under: a rebuilt twin announces as the live one it becomes. */
const liveName = (collection: string): string => collection.replace(/__rebuild$/, '');

/** `schema:collection`, the payload every announcement of a change carries. */
export const changeTopic = (schema: string, collection: string): string => `${schema}:${liveName(collection)}`;

/**
 * A statement-level trigger announcing every write to the table, whoever makes it (the runner,
 * a projection inside an append transaction, a rebuild): the NOTIFY is delivered at commit.
 */
export const announceDdl = (schema: string, qualifiedTable: string, collection: string): string[] => [
  `CREATE OR REPLACE FUNCTION ${quoteIdent(schema)}.rm_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN PERFORM pg_notify('${CHANGES_CHANNEL}', TG_ARGV[0]); RETURN NULL; END $$`,
  `CREATE OR REPLACE TRIGGER rm_announce_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${qualifiedTable}
   FOR EACH STATEMENT EXECUTE FUNCTION ${quoteIdent(schema)}.rm_announce_change('${changeTopic(schema, collection).replaceAll("'", "''")}')`,
];

/** For changes no trigger sees (a table swapped in by a rebuild): sent in the same transaction. */
export const announceSql = `SELECT pg_notify('${CHANGES_CHANNEL}', $1)`;

export const tableName = (collection: string): string => `rm_${assertCollectionName(collection).replaceAll('-', '_')}`;

export const primaryKeyName = (table: string): string => `${table}__pk`;

/** Index names are derived from their definition so that a rebuilt table's indexes can be renamed to the live names. */
export const indexName = (table: string, index: IndexDefinition): string =>
  `${table}__${createHash('sha1').update(JSON.stringify(index)).digest('hex').slice(0, 10)}`;

/**
 * Every field is compared as text in the "C" collation: byte order, as MongoDB compares, and the
 * same whatever the database's locale. Index expressions are written identically so the planner matches them.
 */
export const fieldExpression = (field: string): string =>
  field === 'id' ? 'id' : `((doc->>'${assertFieldName(field)}') COLLATE "C")`;

const scalarText = (value: FieldValue): string => (typeof value === 'string' ? value : String(value));

export const collectionDdl = (schema: string, collection: CollectionDefinition, options: { lz4?: boolean } = {}): string[] => {
  const table = tableName(collection.name);
  const qualified = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${qualified} (id text COLLATE "C" NOT NULL, doc jsonb NOT NULL, json text, position bigint NOT NULL, CONSTRAINT ${quoteIdent(primaryKeyName(table))} PRIMARY KEY (id))`,
  ];
  // Tables created before rows carried their position get it here; 0 skips nothing.
  statements.push(`ALTER TABLE ${qualified} ADD COLUMN IF NOT EXISTS position bigint NOT NULL DEFAULT 0`);
  // Rows written before the served JSON was stored have none: they are rendered from `doc` when read.
  statements.push(`ALTER TABLE ${qualified} ADD COLUMN IF NOT EXISTS json text`);
  if (collection.announceChanges === true) statements.push(...announceDdl(schema, qualified, collection.name));
  // Rows of a few KB are compressed as they are written: lz4 does it in a fraction of pglz's time.
  if (options.lz4 === true) statements.push(`ALTER TABLE ${qualified} ALTER COLUMN doc SET COMPRESSION lz4, ALTER COLUMN json SET COMPRESSION lz4`);
  statements.push(...indexDdl(schema, collection));
  return statements;
};

/** The CREATE INDEX statements of a collection's secondary indexes (the last of `collectionDdl`). */
export const indexDdl = (schema: string, collection: CollectionDefinition): string[] => {
  const table = tableName(collection.name);
  const qualified = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  return collection.indexes.map((index) => {
    const name = quoteIdent(indexName(table, index));
    if (index.kind === 'contains') return `CREATE INDEX IF NOT EXISTS ${name} ON ${qualified} USING gin ((doc->'${assertFieldName(index.field)}') jsonb_path_ops)`;
    const columns = index.fields.map(({ field, direction }) => `${fieldExpression(field)} ${direction === 'desc' ? 'DESC' : 'ASC'}`);
    return `CREATE INDEX IF NOT EXISTS ${name} ON ${qualified} (${columns.join(', ')})`;
  });
};

/** Collects parameters while SQL is assembled, so placeholders always line up. */
export class SqlParameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const conditionSql = (condition: Condition, params: SqlParameters): string => {
  const field = fieldExpression(condition.field);
  switch (condition.op) {
    case 'eq':
      return `${field} = ${params.add(scalarText(condition.value))}`;
    case 'gte':
      return `${field} >= ${params.add(condition.value)}`;
    case 'lte':
      return `${field} <= ${params.add(condition.value)}`;
    case 'notNull':
      return `${field} IS NOT NULL`;
    case 'contains':
      return `doc->'${assertFieldName(condition.field)}' @> ${params.add(JSON.stringify([condition.value]))}::jsonb`;
    case 'in':
      return `${field} = ANY(${params.add(condition.values.map(scalarText))}::text[])`;
  }
};

/**
 * Rows strictly after the keyset. A single direction becomes a row comparison, which a btree
 * index over the same columns answers with one range scan; mixed directions need the expanded form.
 */
const keysetSql = (orderBy: readonly OrderBy[], after: readonly FieldValue[], params: SqlParameters): string => {
  if (after.length !== orderBy.length) throw new Error('keyset must give one value per orderBy field');
  const values = after.map((value) => params.add(scalarText(value)));
  const fields = orderBy.map(({ field }) => fieldExpression(field));
  const first = orderBy[0];
  if (first !== undefined && orderBy.every(({ direction }) => direction === first.direction)) {
    return `(${fields.join(', ')}) ${first.direction === 'desc' ? '<' : '>'} (${values.join(', ')})`;
  }
  const alternatives = orderBy.map(({ direction }, i) => {
    const equalities = fields.slice(0, i).map((field, j) => `${field} = ${values[j]}`);
    return [...equalities, `${fields[i]} ${direction === 'desc' ? '<' : '>'} ${values[i]}`].join(' AND ');
  });
  return `(${alternatives.map((alternative) => `(${alternative})`).join(' OR ')})`;
};

export const whereSql = (where: readonly Condition[], params: SqlParameters, keyset?: string): string => {
  const parts = where.map((condition) => conditionSql(condition, params));
  if (keyset !== undefined) parts.push(keyset);
  return parts.length === 0 ? '' : ` WHERE ${parts.join(' AND ')}`;
};

/** The SELECT of `find` (`doc` of each row) or of another list of columns over the same rows. */
export const selectSql = (qualifiedTable: string, query: DocumentQuery, columns = 'doc'): { text: string; values: unknown[] } => {
  const params = new SqlParameters();
  const keyset = query.after === undefined ? undefined : keysetSql(query.orderBy, query.after, params);
  const where = whereSql(query.where, params, keyset);
  const order = query.orderBy.map(({ field, direction }) => `${fieldExpression(field)} ${direction === 'desc' ? 'DESC' : 'ASC'}`);
  const orderSql = order.length === 0 ? '' : ` ORDER BY ${order.join(', ')}`;
  const limit = ` LIMIT ${params.add(query.limit)}`;
  const offset = query.offset === undefined ? '' : ` OFFSET ${params.add(query.offset)}`;
  return { text: `SELECT ${columns} FROM ${qualifiedTable}${where}${orderSql}${limit}${offset}`, values: params.values };
};

/** Columns of `findServed`: the stored JSON, the document only where no JSON is stored, then the orderBy values. */
export const servedColumns = (query: DocumentQuery): string =>
  ['json', 'CASE WHEN json IS NULL THEN doc END', ...query.orderBy.map(({ field }) => fieldExpression(field))].join(', ');

/** Whether this server was built with lz4 (PGlite may not be). */
export const lz4Sql = `SELECT coalesce(bool_or('lz4' = ANY(enumvals)), false) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`;
