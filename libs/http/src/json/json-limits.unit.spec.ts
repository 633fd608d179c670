import { JSON_LIMITS, type JsonLimits, jsonTextExcess } from './json-limits.js';

const small: JsonLimits = { maxDepth: 3, maxValues: 10, maxEntries: 3, maxStringLength: 5 };
const excessOf = (value: unknown, limits = small) => jsonTextExcess(JSON.stringify(value), limits);

describe('jsonTextExcess', () => {
  it('lets through what stays within every limit, up to each limit itself', () => {
    expect(excessOf({})).toBeNull();
    expect(excessOf({ a: [1, 2, 3], b: 'abcde', c: [] })).toBeNull();
    expect(excessOf({ a: { b: {} } })).toBeNull();
    // 10 values: the body, a and its 3 entries, b, c and its 3 members.
    expect(excessOf({ a: [1, 2, 3], b: null, c: { x: true, y: 'z', w: 0 } })).toBeNull();
    expect(jsonTextExcess(' {\n "a" : [ 1 , 2 , 3 ] ,\t"b":{ } } ', small)).toBeNull();
  });

  it.each([
    ['an array with too many entries', { tests: [1, 2, 3, 4] }, 'tests has more than 3 entries'],
    ['an object with too many members', { a: { w: 1, x: 2, y: 3, z: 4 } }, 'a has more than 3 entries'],
    ['a body with too many members', { w: 1, x: 2, y: 3, z: 4 }, 'the body has more than 3 entries'],
    ['a long string, naming where', { c: [{ e: 'abcdef' }] }, 'c[0].e is longer than 5 characters'],
    ['a long string in a list', { c: ['a', 'b', 'abcdef'] }, 'c[2] is longer than 5 characters'],
    ['a long property name', { a: { abcdef: 1 } }, 'a property name in a is longer than 5 characters'],
    ['too many values in all', { a: [1, 2, 3], b: [1, 2, 3], c: [1, 2] }, 'the body holds more than 10 values'],
  ])('refuses %s', (_label, value, message) => {
    expect(excessOf(value)).toEqual({ tooDeep: false, message });
  });

  it('tells nesting apart from the other limits', () => {
    expect(excessOf({ a: { b: { c: {} } } })).toEqual({ tooDeep: true, message: 'a.b.c is nested deeper than 3 levels' });
    expect(jsonTextExcess(']]]][[[[', small)).toEqual({ tooDeep: true, message: expect.any(String) });
  });

  it('does not count brackets, commas, colons or quotes inside strings', () => {
    const limits = { ...small, maxStringLength: 100 };
    expect(excessOf({ a: '[[[[,,,,::::{{{{' }, limits)).toBeNull();
    expect(excessOf({ a: '\\"[[[[,,,,"\\' }, limits)).toBeNull();
    expect(excessOf({ 'x,y,z,w': 1, '[[[[': 2 }, limits)).toBeNull();
  });

  it('counts the characters of a string as sent', () => {
    expect(jsonTextExcess('{"a":"\\u0041\\u0042"}', { ...small, maxStringLength: 12 })).toBeNull();
    expect(jsonTextExcess('{"a":"\\u0041\\u0042"}', { ...small, maxStringLength: 11 })).toEqual({ tooDeep: false, message: 'a is longer than 11 characters' });
  });

  it('keeps the message short whatever the names in the path', () => {
    const name = 'n'.repeat(5_000);
    const excess = excessOf({ [name]: { [name]: 'x'.repeat(10_001) } }, JSON_LIMITS);
    expect(excess?.message).toMatch(/is longer than 10000 characters$/);
    expect(excess?.message.length).toBeLessThan(200);
  });

  it('refuses 100 000 distinct strings after reading the first thousand, without reading the rest', () => {
    const slugs = JSON.stringify({ name: 'x', tests: Array.from({ length: 100_000 }, (_, index) => `slug-${index}`) });
    const wide = JSON.stringify({ rows: Array.from({ length: 1_000 }, () => Array.from({ length: 1_000 }, () => 0)) });
    expect(jsonTextExcess(slugs)).toEqual({ tooDeep: false, message: 'tests has more than 10000 entries' });
    expect(jsonTextExcess(wide)).toEqual({ tooDeep: false, message: 'the body holds more than 50000 values' });
    const started = performance.now();
    for (let round = 0; round < 100; round += 1) {
      jsonTextExcess(slugs);
      jsonTextExcess(wide);
    }
    // Reading the whole of both texts (3 MB) every round would take more than ten times as long.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('accepts the largest body of the API: 100 people with the longest names', () => {
    const candidates = Array.from({ length: 100 }, (_, index) => ({ email: `p${index}@example.com`, firstName: 'f'.repeat(255), surname: 's'.repeat(255) }));
    expect(excessOf({ candidates }, JSON_LIMITS)).toBeNull();
    expect(JSON_LIMITS).toEqual({ maxDepth: 64, maxValues: 50_000, maxEntries: 10_000, maxStringLength: 10_000 });
  });
});
