import type { Document, Filter, IndexDescription, Long, Sort } from 'mongodb';
import type { Condition, DocumentQuery, FieldValue, OrderBy } from '../shared/document-store.port.js';
import { assertFieldName } from '../shared/document-store.port.js';
import type { IndexDefinition } from '../shared/projection.js';

/** A read-model document as stored: flat, keyed by `_id`. */
export interface StoredDocument extends Document {
  _id: string;
  _position?: Long | bigint | number;
}

/** Documents are stored flat with the key as `_id`, so every top-level field can be indexed as is. */
export const mongoField = (field: string): string => (field === 'id' ? '_id' : assertFieldName(field));

const conditionFilter = (condition: Condition): Filter<StoredDocument> => {
  const field = mongoField(condition.field);
  switch (condition.op) {
    case 'eq':
      return { [field]: condition.value };
    case 'gte':
      return { [field]: { $gte: condition.value } };
    case 'lte':
      return { [field]: { $lte: condition.value } };
    case 'notNull':
      return { [field]: { $ne: null } };
    case 'contains':
      // Equality on an array field matches any element (and uses the multikey index).
      return { [field]: condition.value };
    case 'in':
      return { [field]: { $in: [...condition.values] } };
  }
};

const keysetFilter = (orderBy: readonly OrderBy[], after: readonly FieldValue[]): Filter<StoredDocument> => {
  if (after.length !== orderBy.length) throw new Error('keyset must give one value per orderBy field');
  return {
    $or: orderBy.map(({ field, direction }, i) => {
      const equalities = Object.fromEntries(orderBy.slice(0, i).map((earlier, j) => [mongoField(earlier.field), after[j]]));
      return { ...equalities, [mongoField(field)]: { [direction === 'desc' ? '$lt' : '$gt']: after[i] } };
    }),
  };
};

export const mongoFilter = (where: readonly Condition[], orderBy?: readonly OrderBy[], after?: readonly FieldValue[]): Filter<StoredDocument> => {
  const parts = where.map(conditionFilter);
  if (orderBy !== undefined && after !== undefined) parts.push(keysetFilter(orderBy, after));
  return parts.length === 0 ? {} : { $and: parts };
};

export const mongoSort = (query: DocumentQuery): Sort =>
  query.orderBy.map(({ field, direction }): [string, 1 | -1] => [mongoField(field), direction === 'desc' ? -1 : 1]);

export const mongoIndex = (index: IndexDefinition): IndexDescription =>
  index.kind === 'contains'
    ? { key: { [mongoField(index.field)]: 1 } }
    : { key: Object.fromEntries(index.fields.map(({ field, direction }) => [mongoField(field), direction === 'desc' ? -1 : 1])) };
