import { createHash } from 'node:crypto';
import type { Condition, DocumentQuery, FieldValue, OrderBy } from '../shared/document-store.port.js';
import { assertCollectionName, assertFieldName } from '../shared/document-store.port.js';
import type { CollectionDefinition, IndexDefinition } from '../shared/projection.js';

export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

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

export const collectionDdl = (schema: string, collection: CollectionDefinition): string[] => {
  const table = tableName(collection.name);
  const qualified = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${qualified} (id text COLLATE "C" NOT NULL, doc jsonb NOT NULL, position bigint NOT NULL, CONSTRAINT ${quoteIdent(primaryKeyName(table))} PRIMARY KEY (id))`,
  ];
  // Tables created before rows carried their position get it here; 0 skips nothing.
  statements.push(`ALTER TABLE ${qualified} ADD COLUMN IF NOT EXISTS position bigint NOT NULL DEFAULT 0`);
  for (const index of collection.indexes) {
    const name = quoteIdent(indexName(table, index));
    if (index.kind === 'contains') {
      statements.push(`CREATE INDEX IF NOT EXISTS ${name} ON ${qualified} USING gin ((doc->'${assertFieldName(index.field)}') jsonb_path_ops)`);
    } else {
      const columns = index.fields.map(({ field, direction }) => `${fieldExpression(field)} ${direction === 'desc' ? 'DESC' : 'ASC'}`);
      statements.push(`CREATE INDEX IF NOT EXISTS ${name} ON ${qualified} (${columns.join(', ')})`);
    }
  }
  return statements;
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
    case 'isNull':
      return `${field} IS NULL`;
    case 'notNull':
      return `${field} IS NOT NULL`;
    case 'contains':
      return `doc->'${assertFieldName(condition.field)}' @> ${params.add(JSON.stringify([condition.value]))}::jsonb`;
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

export const selectSql = (qualifiedTable: string, query: DocumentQuery): { text: string; values: unknown[] } => {
  const params = new SqlParameters();
  const keyset = query.after === undefined ? undefined : keysetSql(query.orderBy, query.after, params);
  const where = whereSql(query.where, params, keyset);
  const order = query.orderBy.map(({ field, direction }) => `${fieldExpression(field)} ${direction === 'desc' ? 'DESC' : 'ASC'}`);
  const orderSql = order.length === 0 ? '' : ` ORDER BY ${order.join(', ')}`;
  const limit = ` LIMIT ${params.add(query.limit)}`;
  const offset = query.offset === undefined ? '' : ` OFFSET ${params.add(query.offset)}`;
  return { text: `SELECT doc FROM ${qualifiedTable}${where}${orderSql}${limit}${offset}`, values: params.values };
};
