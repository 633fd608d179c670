import { fingerprint, validateIdempotencyKey } from './idempotency-key.js';

describe('validateIdempotencyKey', () => {
  it('accepts an absent header as no key', () => {
    expect(validateIdempotencyKey(undefined)).toEqual({ ok: true, key: null });
  });

  it.each(['a', 'order-123', 'A'.repeat(255), '!~', 'f47ac10b-58cc-4372-a567-0e02b2c3d479', '{"x":1}'])('accepts %j', (key) => {
    expect(validateIdempotencyKey(key)).toEqual({ ok: true, key });
  });

  it.each([
    ['empty', ''], ['256 characters', 'A'.repeat(256)], ['a space', 'a b'], ['leading space', ' a'], ['a tab', 'a\tb'],
    ['non-ASCII', 'clé'], ['DEL', 'a\x7f'], ['a control character', 'a\x01'], ['repeated header', ['a', 'b']],
    ['one-element array', ['a']],
  ])('refuses %s', (_label, header) => {
    expect(validateIdempotencyKey(header)).toEqual({ ok: false });
  });
});

describe('fingerprint', () => {
  const path = '/v1/assessments/a1/invitations';

  it('is the same for the same JSON value whatever key order and white space', () => {
    const sent = JSON.parse('{"candidates":[{"email":"a@b.co","firstName":"Ann"}]}') as unknown;
    const resent = JSON.parse('{ "candidates" : [ { "firstName" : "Ann", "email" : "a@b.co" } ] }') as unknown;
    expect(fingerprint(path, sent)).toBe(fingerprint(path, resent));
    expect(fingerprint(path, sent)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs for another body or another path', () => {
    const body = { candidates: [{ email: 'a@b.co' }] };
    expect(fingerprint(path, body)).not.toBe(fingerprint(path, { candidates: [{ email: 'b@b.co' }] }));
    expect(fingerprint(path, body)).not.toBe(fingerprint('/v1/assessments/a2/invitations', body));
    expect(fingerprint(path, { a: [1, 2] })).not.toBe(fingerprint(path, { a: [2, 1] }));
  });
});
