import { createHash } from 'node:crypto';
import { canonicalJson } from '#platform';

export type IdempotencyKeyCheck = { ok: true; key: string | null } | { ok: false };

// Printable ASCII without the space (0x21 to 0x7E), 1 to 255 characters (product decisions).
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

/**
 * Reads the Idempotency-Key header. A repeated header arrives as an array and is refused: the
 * client's intent is ambiguous. An empty header is refused too, unlike an absent one.
 */
export const validateIdempotencyKey = (header: string | string[] | undefined): IdempotencyKeyCheck => {
  if (header === undefined) return { ok: true, key: null };
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header)) return { ok: false };
  return { ok: true, key: header };
};

/**
 * What "the same request" means for a key: the same path (the caller removes ALT_BASE_PATH, so
 * `/api/v1/…` and `/v1/…` agree) and the same JSON value as body. The path is JSON-quoted so it
 * cannot run into the body text.
 */
export const fingerprint = (path: string, body: unknown): string =>
  createHash('sha256').update(JSON.stringify(path)).update(canonicalJson(body)).digest('hex');
