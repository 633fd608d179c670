import { validationFailed } from '#domain';

/**
 * The last line before the log: a value PostgreSQL cannot keep (U+0000, an unpaired surrogate) in
 * any field a decider let through is refused as bad input rather than failing the append with a 500.
 */
export const assertStorable = (value: unknown, path = 'body'): void => {
  if (typeof value === 'string') {
    if (value.includes('\u0000') || !value.isWellFormed()) throw validationFailed(`${path} contains a character that cannot be stored (U+0000 or an unpaired surrogate)`);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => assertStorable(item, `${path}[${index}]`));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      assertStorable(key, path);
      assertStorable(item, `${path}.${key}`);
    }
  }
};
