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
 * (400 invalid_parameter) and the body (422 validation_failed), before a handler hands it to SQL,
 * where it failed as a 500. Path parameters are configureFastify's (404).
 */
export const refuseUnstorableInput = (instance: FastifyInstance): void => {
  instance.addHook('preHandler', async (request) => {
    if (queryValues(request.query).some(unstorable)) {
      throw apiError('invalid_parameter', 'A query parameter contains a character that cannot be stored (U+0000 or an unpaired surrogate).');
    }
    // Raw control characters and bad UTF-8 are the handlers' invalid_json; only escapes in JSON are refused here.
    const body = request.body;
    if (typeof body === 'string' && (NUL_ESCAPE.test(body) || LONE_SURROGATE_ESCAPE.test(body)) && isJson(body)) {
      throw apiError('validation_failed', 'The body contains a character that cannot be stored (U+0000 or an unpaired surrogate).');
    }
  });
};
