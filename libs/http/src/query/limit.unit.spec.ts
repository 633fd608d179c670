import { ApiError } from '../errors/api-error.js';
import { catchError } from '../testing/catch-error.js';
import { parseLimit } from './limit.js';

describe('parseLimit', () => {
  it('defaults to 50 when absent', () => {
    expect(parseLimit(undefined)).toBe(50);
  });

  it.each([
    ['1', 1],
    ['50', 50],
    ['100', 100],
    ['007', 7],
  ])('reads %s', (text, expected) => {
    expect(parseLimit(text)).toBe(expected);
  });

  it('accepts a whole number already parsed', () => {
    expect(parseLimit(20)).toBe(20);
  });

  it.each([
    '0', '101', '-1', '+5', ' 5', '5 ', '5.0', '1e2', '0x10', '', 'abc', '10abc', '٥', '99999999999999999999999',
  ])('refuses %j with 400 invalid_parameter naming limit', (text) => {
    const error = catchError(() => parseLimit(text));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect((error as ApiError).message).toContain('limit');
  });

  it.each([[['10', '20']], [null], [true], [2.5], [Number.NaN], [{}]])('refuses %j', (value) => {
    expect(catchError(() => parseLimit(value))).toMatchObject({ status: 400, code: 'invalid_parameter' });
  });

  it('applies custom bounds, default and name', () => {
    const perPage = { default: 50, min: 1, max: 100, name: 'per_page' };
    expect(parseLimit(undefined, { default: 10 })).toBe(10);
    expect(parseLimit('100000', { min: 1, max: Number.MAX_SAFE_INTEGER, name: 'page' })).toBe(100000);
    expect((catchError(() => parseLimit('0', perPage)) as ApiError).message).toContain('per_page');
  });
});
