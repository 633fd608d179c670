/**
 * JSON with object keys sorted at every level, so two bodies that are the same JSON value (key
 * order and white space aside) give the same text. Array order is kept: it is part of the value.
 * Values JSON cannot carry follow JSON.stringify (undefined members dropped, undefined in arrays
 * as null), so the result matches what a client would have had to send.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((key) => record[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
};
