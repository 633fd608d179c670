import { jest } from '@jest/globals';
import { ApiError } from '../errors/api-error.js';
import { catchError } from '../testing/catch-error.js';
import { CursorCodec, hashFilters } from './cursor-codec.js';
import { MAX_CURSOR_LENGTH, readCursorParam } from './cursor-param.js';

const codec = new CursorCodec('a-test-secret-of-enough-length');
const position = { t: '2026-10-01T09:00:00.123Z', id: 'cand_01' };
const S = { workspaceId: 'ws_01', mode: 'live' };

// Changes one base64url character into another valid one.
const flip = (cursor: string, index: number): string => {
  const replacement = cursor[index] === 'A' ? 'B' : 'A';
  return cursor.slice(0, index) + replacement + cursor.slice(index + 1);
};

describe('CursorCodec', () => {
  it('round-trips a payload through an opaque base64url string', () => {
    const cursor = codec.encode({ t: 1, id: 'x', f: null });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('cand');
    expect(codec.decode(cursor)).toEqual({ t: 1, id: 'x', f: null });
  });

  it('refuses every single-character edit', () => {
    const cursor = codec.encode(position);
    for (let index = 0; index < cursor.length; index += 1) {
      expect(codec.decode(flip(cursor, index))).toBeNull();
    }
  });

  it('refuses truncated, extended and garbage cursors', () => {
    const cursor = codec.encode(position);
    for (const bad of [
      '', 'abc', 'not a cursor', '%%%', cursor.slice(0, -1), cursor.slice(1), `${cursor}A`, `${cursor}=`,
      `${cursor}.`, Buffer.from(JSON.stringify(position)).toString('base64url'), 'A'.repeat(200),
    ]) {
      expect(codec.decode(bad)).toBeNull();
    }
  });

  it('refuses a cursor whose last character differs only in unused bits', () => {
    const cursor = codec.encode({ id: 'ab' });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = cursor.charAt(cursor.length - 1);
    for (const char of alphabet) {
      if (char === last) continue;
      expect(codec.decode(cursor.slice(0, -1) + char)).toBeNull();
    }
  });

  it('refuses a cursor signed with another secret', () => {
    const other = new CursorCodec('another-secret-of-enough-length');
    expect(codec.decode(other.encode(position))).toBeNull();
  });

  it('refuses a correctly signed payload that is not a flat record', () => {
    const forge = (json: string): string => {
      const body = Buffer.from(json);
      const mac = (codec as unknown as { mac(data: Buffer): Buffer }).mac(body);
      return Buffer.concat([mac, body]).toString('base64url');
    };
    expect(codec.decode(forge('{"id":"x"}'))).toEqual({ id: 'x' });
    for (const json of ['[1]', 'null', '"x"', '{"id":{"a":1}}', '{"id":[1]}', '{"id":true}', '{bad']) {
      expect(codec.decode(forge(json))).toBeNull();
    }
  });

  it('needs a secret of at least 16 bytes', () => {
    expect(() => new CursorCodec('short')).toThrow('cursor secret must be at least 16 bytes');
    expect(() => new CursorCodec(Buffer.alloc(15, 7))).toThrow('cursor secret must be at least 16 bytes');
    const codec = new CursorCodec(Buffer.alloc(16, 7));
    expect(codec.decode(codec.encode({ id: 'x' }))).toEqual({ id: 'x' });
  });
});

describe('cursors per list and filters', () => {
  it('round-trips the position without the reserved fields', () => {
    const cursor = codec.encodeFor('candidates', position, { assessment: 'a1' }, S);
    expect(codec.decodeFor('candidates', cursor, { assessment: 'a1' }, S)).toEqual(position);
  });

  it('refuses a cursor of another list', () => {
    const cursor = codec.encodeFor('candidates', position, {}, S);
    expect(codec.decodeFor('results', cursor, {}, S)).toBeNull();
    expect(codec.decodeFor('assessments', cursor, {}, S)).toBeNull();
  });

  it('refuses a cursor used with other filters', () => {
    const cursor = codec.encodeFor('results', position, { assessment: 'a1', order: 'asc' }, S);
    expect(codec.decodeFor('results', cursor, { assessment: 'a2', order: 'asc' }, S)).toBeNull();
    expect(codec.decodeFor('results', cursor, { assessment: 'a1', order: 'desc' }, S)).toBeNull();
    expect(codec.decodeFor('results', cursor, { assessment: 'a1' }, S)).toBeNull();
    expect(codec.decodeFor('results', cursor, {}, S)).toBeNull();
  });

  it('treats filter order and absent filters as the same filters', () => {
    const cursor = codec.encodeFor('results', position, { order: 'asc', assessment: 'a1', since: undefined }, S);
    expect(codec.decodeFor('results', cursor, { assessment: 'a1', order: 'asc' }, S)).toEqual(position);
    expect(hashFilters({ a: 1, b: undefined })).toBe(hashFilters({ a: 1 }));
    expect(hashFilters({ a: '1' })).not.toBe(hashFilters({ a: 1 }));
  });

  it('refuses a cursor issued to another workspace or in another mode', () => {
    const cursor = codec.encodeFor('candidates', position, { assessment: 'a1' }, S);
    expect(codec.decodeFor('candidates', cursor, { assessment: 'a1' }, { workspaceId: 'ws_other', mode: 'live' })).toBeNull();
    expect(codec.decodeFor('candidates', cursor, { assessment: 'a1' }, { workspaceId: S.workspaceId, mode: 'sandbox' })).toBeNull();
  });

  it('refuses positions that use a reserved field', () => {
    expect(() => codec.encodeFor('results', { kind: 'x' }, {}, S)).toThrow();
    expect(() => codec.encodeFor('results', { scope: 'x' }, {}, S)).toThrow();
    expect(() => codec.encodeFor('results', { filters: 'x' }, {}, S)).toThrow();
  });
});

describe('readCursorParam', () => {
  const list = 'assessments';
  const filters = { status: 'active' };

  it('answers null for the first page', () => {
    expect(readCursorParam(codec, list, undefined, filters, S)).toBeNull();
  });

  it('answers the position of a valid cursor', () => {
    expect(readCursorParam(codec, list, codec.encodeFor(list, position, filters, S), filters, S)).toEqual(position);
  });

  it.each([
    ['an edited cursor', flip(codec.encodeFor(list, position, { status: 'active' }, S), 3)],
    ['an empty cursor', ''],
    ['a repeated cursor', ['a', 'b']],
    ['a cursor of another list', codec.encodeFor('candidates', position, { status: 'active' }, S)],
    ['a cursor of other filters', codec.encodeFor(list, position, { status: 'archived' }, S)],
    ['a cursor of another workspace', codec.encodeFor(list, position, filters, { workspaceId: 'ws_other', mode: 'live' })],
    ['a cursor of the other mode', codec.encodeFor(list, position, filters, { workspaceId: S.workspaceId, mode: 'sandbox' })],
  ])('throws 400 invalid_cursor for %s', (_label, value) => {
    const error = catchError(() => readCursorParam(codec, list, value, filters, S));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_cursor' });
  });

  it('refuses a cursor longer than the documented maxLength before decoding it, and issues none that long', () => {
    // The longest positions the lists use: a time and an id far longer than any the service makes.
    const longest = codec.encodeFor('candidates', { t: '2026-10-01T09:00:00.123Z', id: `cand_${'x'.repeat(100)}` }, { a: 'b' }, S);
    expect(longest.length).toBeLessThan(MAX_CURSOR_LENGTH / 2);
    const padded = `${codec.encodeFor(list, position, filters, S)}${'A'.repeat(MAX_CURSOR_LENGTH)}`;
    const decoded = jest.spyOn(codec, 'decodeFor');
    expect(catchError(() => readCursorParam(codec, list, padded, filters, S))).toMatchObject({ status: 400, code: 'invalid_cursor' });
    expect(decoded).not.toHaveBeenCalled();
    decoded.mockRestore();
  });
});
