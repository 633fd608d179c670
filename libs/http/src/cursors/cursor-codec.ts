import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '#platform';

export type CursorValue = string | number | null;
export type CursorPayload = Record<string, CursorValue>;
export type CursorFilters = Record<string, string | number | boolean | null | undefined>;
/** Who a cursor was issued to: a cursor of another workspace or mode is refused, even though no row would leak. */
export interface CursorScope {
  workspaceId: string;
  mode: string;
}

const MAC_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
// Fields encodeFor adds itself; a position using them would be silently overwritten.
const RESERVED = ['kind', 'filters', 'scope'] as const;

/** Opaque list cursors: base64url of an HMAC-SHA256 tag and the JSON payload, so any edit is refused. */
export class CursorCodec {
  private readonly secret: Buffer;

  constructor(secret: Buffer | string) {
    this.secret = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
    if (this.secret.length < 16) throw new Error('cursor secret must be at least 16 bytes');
  }

  /** Cursors signed lately, by payload text: a list read again hands out the same cursor without another HMAC. */
  private readonly signed = new Map<string, string>();

  encode(payload: CursorPayload): string {
    const text = JSON.stringify(payload);
    return memo(this.signed, text, () => {
      const json = Buffer.from(text, 'utf8');
      return Buffer.concat([this.mac(json), json]).toString('base64url');
    });
  }

  /** The payload, or null for anything this codec did not sign unchanged. */
  decode(cursor: string): CursorPayload | null {
    if (typeof cursor !== 'string' || !BASE64URL.test(cursor)) return null;
    const bytes = Buffer.from(cursor, 'base64url');
    // Base64 ignores the unused low bits of the last character: re-encoding catches such edits.
    if (bytes.length <= MAC_BYTES || bytes.toString('base64url') !== cursor) return null;
    const tag = bytes.subarray(0, MAC_BYTES);
    const json = bytes.subarray(MAC_BYTES);
    if (!timingSafeEqual(tag, this.mac(json))) return null;
    return parsePayload(json);
  }

  /** A cursor for one list (`kind`) and one set of filters: decodeFor refuses it with any other. */
  encodeFor(list: string, position: CursorPayload, filters: CursorFilters, scope: CursorScope): string {
    for (const field of RESERVED) {
      if (field in position) throw new Error(`cursor position cannot use the reserved field ${field}`);
    }
    return this.encode({ ...position, kind: list, filters: hashFilters(filters), scope: scopeOf(scope) });
  }

  decodeFor(list: string, cursor: string, filters: CursorFilters, scope: CursorScope): CursorPayload | null {
    const payload = this.decode(cursor);
    if (!payload || payload.kind !== list || payload.filters !== hashFilters(filters) || payload.scope !== scopeOf(scope)) return null;
    const { kind: _kind, filters: _filters, scope: _scope, ...position } = payload;
    return position;
  }

  private mac(data: Buffer): Buffer {
    return createHmac('sha256', this.secret).update(data).digest();
  }
}

/** Entries kept by each memo below (all are pure functions of their key); emptied when full. */
const MEMO_SIZE = 1_000;
const memo = <T>(map: Map<string, T>, key: string, compute: () => T): T => {
  const known = map.get(key);
  if (known !== undefined) return known;
  const value = compute();
  if (map.size >= MEMO_SIZE) map.clear();
  map.set(key, value);
  return value;
};

const hashes = new Map<string, string>();
// Hashed like the filters: the cursor stays short and does not spell out the workspace id.
const scopeOf = (scope: CursorScope): string => hashFilters({ workspaceId: scope.workspaceId, mode: scope.mode });

/** Absent filters (undefined) hash like omitted ones; key order does not matter. */
export const hashFilters = (filters: CursorFilters): string => {
  const text = canonicalJson(filters);
  return memo(hashes, text, () => createHash('sha256').update(text).digest('base64url').slice(0, 22));
};

const parsePayload = (json: Buffer): CursorPayload | null => {
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  const isCursorValue = (item: unknown): item is CursorValue =>
    item === null || typeof item === 'string' || typeof item === 'number';
  if (!entries.every(([, item]) => isCursorValue(item))) return null;
  // fromEntries defines own properties, so a `__proto__` field cannot touch the prototype.
  return Object.fromEntries(entries) as CursorPayload;
};
