import type { FieldValue } from '#read-models';

/**
 * "Older" links of the pages' lists: the keyset of the last row shown ([createdAt, id]), as
 * base64url JSON. It only selects rows the page may show anyway, so it is not signed; anything
 * that does not decode to two strings starts from the top.
 */
export const encodePageCursor = (next: FieldValue[] | null): string | null => (next ? Buffer.from(JSON.stringify(next)).toString('base64url') : null);

export const decodePageCursor = (after: string): string[] | undefined => {
  try {
    const parsed: unknown = after ? JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) : undefined;
    return Array.isArray(parsed) && parsed.length === 2 && parsed.every((part) => typeof part === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
};
