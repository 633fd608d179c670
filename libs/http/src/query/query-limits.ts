/*
 * The work one query string may ask for (docs/operations.md, "Limits on the work of one request").
 * Node already refuses a request line and headers over 16 KiB (431); these limits are the service's
 * own, whatever Node's setting, and bound what the routes' rules do per parameter. No route of either
 * API reads more than six parameters; an unknown parameter is still ignored below the limits.
 */

export interface QueryLimits {
  /** Characters after the `?`, as sent (percent-encoded). */
  readonly maxLength: number;
  /** `name=value` pairs, a repeated name counted each time. */
  readonly maxParameters: number;
}

export const QUERY_LIMITS: QueryLimits = { maxLength: 8_192, maxParameters: 100 };

const AMPERSAND = 0x26;

/**
 * How the query string of a request target goes beyond the limits, as a message, or null. One pass
 * over the characters, without decoding or building anything.
 */
export const queryExcess = (url: string, limits: QueryLimits = QUERY_LIMITS): string | null => {
  const start = url.indexOf('?');
  if (start === -1) return null;
  if (url.length - start - 1 > limits.maxLength) return `the query string is longer than ${limits.maxLength} characters`;
  let parameters = 0;
  // Empty pairs (`a=1&&b=2`) name nothing and are not counted, as the parser skips them.
  let pairHasText = false;
  for (let index = start + 1; index < url.length; index += 1) {
    if (url.charCodeAt(index) === AMPERSAND) {
      if (pairHasText) parameters += 1;
      pairHasText = false;
      if (parameters > limits.maxParameters) break;
    } else {
      pairHasText = true;
    }
  }
  if (pairHasText) parameters += 1;
  return parameters > limits.maxParameters ? `the query string has more than ${limits.maxParameters} parameters` : null;
};
