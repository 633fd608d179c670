import { createHash } from 'node:crypto';
import { canonicalJson } from '#platform';

export type IdempotencyKeyCheck = { ok: true; key: string | null } | { ok: false };

// Printable ASCII without the space (0x21 to 0x7E), 1 to 255 characters (product decisions).
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

/** The Idempotency-Key header; a repeated one (ambiguous) and an empty one are refused, an absent one is no key. */
export const validateIdempotencyKey = (header: string | string[] | undefined): IdempotencyKeyCheck => {
  if (header === undefined) return { ok: true, key: null };
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header)) return { ok: false };
  return { ok: true, key: header };
};

/**
 * "The same request" for a key: the same path without ALT_BASE_PATH (JSON-quoted, so it cannot run
 * into the body text) and the same JSON value as body.
 */
export const fingerprint = (path: string, body: unknown): string =>
  createHash('sha256').update(JSON.stringify(path)).update(canonicalJson(body)).digest('hex');
