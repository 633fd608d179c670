import { apiError } from '../errors/api-error.js';
import { JSON_LIMITS, jsonExcess } from './json-limits.js';

/** Deeper bodies are refused: no request of this API nests anywhere near this. */
export const MAX_JSON_DEPTH = JSON_LIMITS.maxDepth;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The request body as a JSON object, whatever the Content-Type (product decisions); anything else
 * (empty, not JSON, an array, null, a scalar, too deep) is 400 invalid_json. An object that asks for
 * more work than one request may (json-limits.ts: too many values, entries or characters) is 422
 * validation_failed, before any rule of the route runs.
 */
export const parseJsonObjectBody = (raw: string | Buffer | undefined): Record<string, unknown> => {
  const text = decode(raw);
  if (text === null || exceedsDepth(text, MAX_JSON_DEPTH)) throw apiError('invalid_json');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // SyntaxError for bad JSON, RangeError should an engine limit still be reached.
    throw apiError('invalid_json');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw apiError('invalid_json');
  const excess = jsonExcess(value);
  if (excess !== null) throw apiError('validation_failed', `Beyond the limits on one request body: ${excess}.`);
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

/**
 * One linear pass before JSON.parse, so a body of 100 000 `[` is refused in microseconds and
 * never reaches the recursive parser or the recursive code that walks the parsed value. Brackets
 * inside strings do not count; a backslash escapes the next character of a string.
 */
export const exceedsDepth = (text: string, maxDepth: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      // Unbalanced closers are JSON.parse's to report; they must not hide later openers.
      depth = Math.max(0, depth - 1);
    }
  }
  return false;
};
