import { apiError } from '../errors/api-error.js';
import type { CursorCodec, CursorFilters, CursorPayload, CursorScope } from './cursor-codec.js';

/**
 * The longest `cursor` accepted, as the document states. Every cursor the service issues is far
 * shorter (an HMAC tag and a small JSON position: about 250 characters), so a longer one cannot
 * have come from `meta.nextCursor`, and is refused before any decoding.
 */
export const MAX_CURSOR_LENGTH = 1024;

/**
 * Reads the `cursor` query parameter of a list: absent means the first page (null); anything that
 * is not a cursor this list issued for these filters, to this workspace and mode, is 400
 * invalid_cursor (API document 4.2).
 */
export const readCursorParam = (
  codec: CursorCodec,
  list: string,
  value: unknown,
  filters: CursorFilters,
  scope: CursorScope,
): CursorPayload | null => {
  if (value === undefined) return null;
  const position = typeof value === 'string' && value.length <= MAX_CURSOR_LENGTH ? codec.decodeFor(list, value, filters, scope) : null;
  if (!position) throw apiError('invalid_cursor');
  return position;
};
