import { apiError } from '../errors/api-error.js';
import type { CursorCodec, CursorFilters, CursorPayload, CursorScope } from './cursor-codec.js';

/** The longest `cursor` accepted (the document's): the service's are about 250 characters. */
export const MAX_CURSOR_LENGTH = 1024;

/**
 * A list's `cursor` parameter: absent is the first page (null); anything but a cursor this list issued
 * for these filters, workspace and mode is 400 invalid_cursor (API document 4.2).
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
