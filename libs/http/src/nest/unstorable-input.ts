import type { FastifyInstance } from 'fastify';
import { apiError } from '../errors/api-error.js';

// A JSON escape of U+0000 (`\u0000`) that is not itself escaped (`\\u0000` is a backslash and text).
const NUL_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\u0000/i;
// Unpaired surrogates written as escapes: a high one not followed by a low one, or a low one alone.
const LONE_SURROGATE_ESCAPE = /(?:^|[^\\])(?:\\\\)*(?:\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2})/i;

const unstorable = (text: string): boolean => text.includes('\u0000') || !text.isWellFormed();

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

const queryValues = (query: unknown): string[] => {
  if (typeof query !== 'object' || query === null) return [];
  return Object.entries(query).flatMap(([name, value]) => [name, ...(Array.isArray(value) ? value : [value])]).filter((item): item is string => typeof item === 'string');
};

/**
 * Text no store can hold (U+0000, unpaired surrogates) is refused at the edge, in the query string
 * (400 invalid_parameter) and in the body (422 validation_failed), before any handler can hand it
 * to SQL as a parameter: the internal application takes free text in many places (filters, links,
 * names), and one such value used to fail deep inside a statement as a 500.
 * Path parameters are refused by configureFastify (404: no id contains them).
 */
export const refuseUnstorableInput = (instance: FastifyInstance): void => {
  instance.addHook('preHandler', async (request) => {
    if (queryValues(request.query).some(unstorable)) {
      throw apiError('invalid_parameter', 'A query parameter contains a character that cannot be stored (U+0000 or an unpaired surrogate).');
    }
    // Raw control characters and bad UTF-8 are not JSON at all: the handlers answer those invalid_json.
    // Only escapes that JSON.parse would turn into such characters are refused here, and only in JSON.
    const body = request.body;
    if (typeof body === 'string' && (NUL_ESCAPE.test(body) || LONE_SURROGATE_ESCAPE.test(body)) && isJson(body)) {
      throw apiError('validation_failed', 'The body contains a character that cannot be stored (U+0000 or an unpaired surrogate).');
    }
  });
};
