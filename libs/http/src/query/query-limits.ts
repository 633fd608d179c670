/*
 * The work one query string may ask for (docs/operations.md, "Limits on the work of one request"):
 * the service's own, whatever Node's 16 KiB limit on the head. No route reads more than six
 * parameters; an unknown one is still ignored below the limits.
 */

export interface QueryLimits {
  /** Characters after the `?`, as sent (percent-encoded). */
  readonly maxLength: number;
  /** `name=value` pairs, a repeated name counted each time. */
  readonly maxParameters: number;
}

export const QUERY_LIMITS: QueryLimits = { maxLength: 8_192, maxParameters: 100 };

const AMPERSAND = 0x26;

/** How a request target's query string goes beyond the limits, or null: one pass, nothing decoded. */
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
