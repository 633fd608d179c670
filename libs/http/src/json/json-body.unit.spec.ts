import { ApiError } from '../errors/api-error.js';
import { catchError } from '../testing/catch-error.js';
import { parseJsonObjectBody } from './json-body.js';
import { JSON_LIMITS, jsonTextExcess } from './json-limits.js';

const MAX_JSON_DEPTH = JSON_LIMITS.maxDepth;

const expectInvalidJson = (raw: string | Buffer | undefined): void => {
  const error = catchError(() => parseJsonObjectBody(raw));
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status: 400, code: 'invalid_json' });
};

const nested = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

describe('parseJsonObjectBody', () => {
  it('reads a JSON object from text or bytes', () => {
    expect(parseJsonObjectBody('{"candidates":[{"email":"a@b.co"}]}')).toEqual({ candidates: [{ email: 'a@b.co' }] });
    expect(parseJsonObjectBody(Buffer.from(' \n{ "name" : "Été" } \t'))).toEqual({ name: 'Été' });
    expect(parseJsonObjectBody('{}')).toEqual({});
    expect(parseJsonObjectBody('\uFEFF{"a":1}')).toEqual({ a: 1 });
  });

  it.each([
    ['absent', undefined], ['empty', ''], ['white space', '  '], ['array', '[]'], ['array of objects', '[{"a":1}]'],
    ['null', 'null'], ['number', '42'], ['string', '"text"'], ['boolean', 'true'], ['truncated', '{"a":'],
    ['trailing comma', '{"a":1,}'], ['single quotes', "{'a':1}"], ['two values', '{}{}'], ['comment', '{} // x'],
    ['not JSON', 'name=x'], ['a long list', JSON.stringify(Array.from({ length: 5_000 }, () => 1))], ['a long string', JSON.stringify('x'.repeat(20_000))],
  ])('refuses %s', (_label, raw) => {
    expectInvalidJson(raw);
  });

  it('refuses bytes that are not UTF-8', () => {
    expectInvalidJson(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
  });

  it('accepts the maximum depth and refuses one more', () => {
    expect(parseJsonObjectBody(nested(MAX_JSON_DEPTH))).toStrictEqual(JSON.parse(nested(MAX_JSON_DEPTH)));
    expectInvalidJson(nested(MAX_JSON_DEPTH + 1));
    expectInvalidJson(`{"a":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`);
  });

  it('refuses 100 000 nested brackets quickly and without crashing', () => {
    const started = Date.now();
    expectInvalidJson('['.repeat(100_000));
    expectInvalidJson(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expectInvalidJson(`{"a":${'{"b":'.repeat(100_000)}1${'}'.repeat(100_001)}`);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reads a large flat body within the limits on one request', () => {
    const candidates = Array.from({ length: 10_000 }, (_, index) => ({ email: `p${index}@example.com` }));
    expect(parseJsonObjectBody(JSON.stringify({ candidates })).candidates).toHaveLength(10_000);
  });

  it('refuses a body beyond the limits on one request with 422 validation_failed naming where, quickly', () => {
    const slugs = JSON.stringify({ name: 'x', tests: Array.from({ length: 100_000 }, (_, index) => `slug-${index}`) });
    const people = JSON.stringify({ candidates: Array.from({ length: 20_000 }, (_, index) => ({ email: `p${index}@example.com` })) });
    const longName = JSON.stringify({ name: 'x'.repeat(10_001) });
    parseJsonObjectBody('{}');
    const started = performance.now();
    const error = catchError(() => parseJsonObjectBody(slugs));
    // Refused at its 10 001st entry, before JSON.parse; the quadratic rule it replaces took 37 s here.
    expect(performance.now() - started).toBeLessThan(200);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422, code: 'validation_failed', message: 'Beyond the limits on one request body: tests has more than 10000 entries.' });
    expect(catchError(() => parseJsonObjectBody(people))).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(catchError(() => parseJsonObjectBody(longName))).toMatchObject({ status: 422, code: 'validation_failed', message: expect.stringContaining('name is longer than 10000 characters') });
  });

  it('does not count brackets inside strings', () => {
    const deepText = '['.repeat(1000) + '{'.repeat(1000);
    expect(parseJsonObjectBody(JSON.stringify({ note: deepText }))).toEqual({ note: deepText });
    const escaped = JSON.stringify({ note: `\\"${'['.repeat(100)}"\\` });
    expect(parseJsonObjectBody(escaped)).toEqual(JSON.parse(escaped));
  });
});

/** Whether a JSON text nests deeper than maxDepth, every other limit lifted. */
const exceedsDepth = (text: string, maxDepth: number): boolean =>
  jsonTextExcess(text, { maxDepth, maxValues: Infinity, maxEntries: Infinity, maxStringLength: Infinity })?.tooDeep === true;

describe('jsonTextExcess on depth alone', () => {
  it('counts only structural brackets', () => {
    expect(exceedsDepth('[[1]]', 2)).toBe(false);
    expect(exceedsDepth('[[[1]]]', 2)).toBe(true);
    expect(exceedsDepth('["[[[[", "\\"[[[["]', 1)).toBe(false);
    expect(exceedsDepth('["\\\\", [[1]]]', 2)).toBe(true);
    expect(exceedsDepth('[][][][]', 1)).toBe(false);
  });

  it('is not fooled by stray closers before openers', () => {
    expect(exceedsDepth(']]]][[[', 2)).toBe(true);
  });
});
