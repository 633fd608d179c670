import { wholeNumberWithin } from './limit.js';

describe('wholeNumberWithin', () => {
  it.each([
    ['1', 1],
    ['50', 50],
    ['100', 100],
    ['007', 7],
  ])('reads %s', (text, expected) => {
    expect(wholeNumberWithin(text, 1, 100)).toBe(expected);
  });

  it('accepts a whole number already parsed', () => {
    expect(wholeNumberWithin(20, 1, 100)).toBe(20);
  });

  it.each([
    '0', '101', '-1', '+5', ' 5', '5 ', '5.0', '1e2', '0x10', '', 'abc', '10abc', '٥', '99999999999999999999999',
  ])('refuses %j', (text) => {
    expect(wholeNumberWithin(text, 1, 100)).toBeNull();
  });

  it.each([[['10', '20']], [null], [true], [2.5], [Number.NaN], [{}], [undefined]])('refuses %j', (value) => {
    expect(wholeNumberWithin(value, 1, 100)).toBeNull();
  });

  it('applies the bounds it is given', () => {
    expect(wholeNumberWithin('100000', 1, Number.MAX_SAFE_INTEGER)).toBe(100000);
    expect(wholeNumberWithin('0', 0, 10)).toBe(0);
    expect(wholeNumberWithin('11', 0, 10)).toBeNull();
  });
});
