import { JSON_LIMITS, type JsonLimits, jsonExcess } from './json-limits.js';

const small: JsonLimits = { maxDepth: 3, maxValues: 10, maxEntries: 3, maxStringLength: 5 };

describe('jsonExcess', () => {
  it('lets through what stays within every limit, up to each limit itself', () => {
    expect(jsonExcess({}, small)).toBeNull();
    expect(jsonExcess({ a: [1, 2, 3], b: 'abcde' }, small)).toBeNull();
    expect(jsonExcess({ a: { b: {} } }, small)).toBeNull();
    // 10 values: the body, a and its 3 entries, b, c and its 3 members.
    expect(jsonExcess({ a: [1, 2, 3], b: null, c: { x: true, y: 'z', w: 0 } }, small)).toBeNull();
  });

  it.each([
    ['an array with too many entries', { tests: [1, 2, 3, 4] }, 'tests has more than 3 entries'],
    ['an object with too many members', { a: { w: 1, x: 2, y: 3, z: 4 } }, 'a has more than 3 entries'],
    ['a body with too many members', { w: 1, x: 2, y: 3, z: 4 }, 'the body has more than 3 entries'],
    ['a long string, naming where', { c: [{ e: 'abcdef' }] }, 'c[0].e is longer than 5 characters'],
    ['a long property name', { a: { abcdef: 1 } }, 'a property name in a is longer than 5 characters'],
    ['too many values in all', { a: [1, 2, 3], b: [1, 2, 3], c: [1, 2] }, 'the body holds more than 10 values'],
    ['too deep', { a: { b: { c: {} } } }, 'a.b.c is nested deeper than 3 levels'],
  ])('refuses %s', (_label, value, message) => {
    expect(jsonExcess(value, small)).toBe(message);
  });

  it('keeps the message short whatever the names in the path', () => {
    const name = 'n'.repeat(5_000);
    const message = jsonExcess({ [name]: { [name]: 'x'.repeat(10_001) } });
    expect(message).toMatch(/is longer than 10000 characters$/);
    expect(message?.length).toBeLessThan(200);
  });

  it('refuses 100 000 distinct strings without reading them, and a million values in a few milliseconds', () => {
    const slugs = Array.from({ length: 100_000 }, (_, index) => `slug-${index}`);
    const wide = { rows: Array.from({ length: 1_000 }, () => Array.from({ length: 1_000 }, () => 0)) };
    const started = performance.now();
    expect(jsonExcess({ name: 'x', tests: slugs })).toBe('tests has more than 1000 entries');
    expect(jsonExcess(wide)).toBe('the body holds more than 10000 values');
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('accepts the largest body of the API: 100 people with the longest names', () => {
    const candidates = Array.from({ length: 100 }, (_, index) => ({ email: `p${index}@example.com`, firstName: 'f'.repeat(255), surname: 's'.repeat(255) }));
    expect(jsonExcess({ candidates })).toBeNull();
    expect(JSON_LIMITS).toEqual({ maxDepth: 64, maxValues: 10_000, maxEntries: 1_000, maxStringLength: 10_000 });
  });
});
