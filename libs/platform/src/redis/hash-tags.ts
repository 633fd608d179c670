/**
 * Redis Cluster hashes only the part of a key between the first `{` and the next `}` (the hash tag)
 * when that part is not empty; keys with the same tag share a slot, which a script or a MULTI over
 * several keys needs there. The same rule is applied here, so the service and Redis never disagree.
 */
export const hashTagOf = (key: string): string | null => {
  const open = key.indexOf('{');
  if (open < 0) return null;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : null;
};

/** `name` wrapped in braces, unless it already carries a tag (an operator's `{...}` is used as given). */
export const hashTagged = (name: string): string => (hashTagOf(name) === null ? `{${name}}` : name);

/** A SCAN/KEYS pattern matching keys that start with `prefix` literally (glob characters escaped). */
export const prefixPattern = (prefix: string): string => `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
