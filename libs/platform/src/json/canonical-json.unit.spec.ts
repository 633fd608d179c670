import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('gives the same text for the same JSON value whatever the key order and white space', () => {
    const first = JSON.parse('{ "candidates": [ { "email": "a@b.co", "firstName": "Ann" } ], "x": 1.0 }') as unknown;
    const second = JSON.parse('{"x":1,"candidates":[{"firstName":"Ann","email":"a@b.co"}]}') as unknown;
    expect(canonicalJson(first)).toBe(canonicalJson(second));
  });

  it('follows JSON.stringify for values JSON cannot carry', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined])).toBe('[null]');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('x"y')).toBe('"x\\"y"');
  });

  it('writes a bigint as its digits', () => {
    expect(canonicalJson({ n: 12345678901234567890n })).toBe('{"n":12345678901234567890}');
  });
});
