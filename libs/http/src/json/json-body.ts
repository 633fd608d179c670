import { apiError } from '../errors/api-error.js';
import { JSON_LIMITS, jsonTextExcess } from './json-limits.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
// JSON white space only (RFC 8259), then the object's brace.
const STARTS_AS_OBJECT = /^[ \t\n\r]*\{/;

/**
 * The request body as a JSON object, whatever the Content-Type (product decisions); anything else
 * (empty, not JSON, an array, a scalar, too deep) is 400 invalid_json, and an object beyond the limits
 * of json-limits.ts 422 validation_failed: both found in one pass over the text before JSON.parse, so
 * a body of 100 000 `[` is refused in microseconds.
 */
export const parseJsonObjectBody = (raw: string | Buffer | undefined): Record<string, unknown> => {
  const text = decode(raw);
  // Only an object is read: anything else is invalid_json whatever its size.
  if (text === null || !STARTS_AS_OBJECT.test(text)) throw apiError('invalid_json');
  const excess = jsonTextExcess(text, JSON_LIMITS);
  if (excess?.tooDeep) throw apiError('invalid_json');
  if (excess) throw apiError('validation_failed', `Beyond the limits on one request body: ${excess.message}.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // SyntaxError for bad JSON, RangeError should an engine limit still be reached.
    throw apiError('invalid_json');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw apiError('invalid_json');
  return value as Record<string, unknown>;
};

const decode = (raw: string | Buffer | undefined): string | null => {
  if (raw === undefined) return null;
  let text: string;
  if (typeof raw === 'string') text = raw;
  else {
    try {
      text = strictUtf8.decode(raw);
    } catch {
      return null;
    }
  }
  // A leading byte-order mark is allowed by RFC 8259 but not by JSON.parse.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
};
