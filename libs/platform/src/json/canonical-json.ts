/**
 * One byte sequence per value, whatever order its keys were written or stored in: JSONB reorders
 * keys, so a hash over JSON.stringify would change between the append and a later read, and two
 * request bodies that are the same JSON value (key order and white space aside) must give the same
 * fingerprint. Objects are written with their keys sorted, array order is kept (it is part of the
 * value); `undefined` members are left out and `undefined` in arrays is null, as JSON.stringify does.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return value.toString();
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item !== undefined) members.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
  }
  return `{${members.join(',')}}`;
};
