import { ApiError } from '../errors/api-error.js';
import { catchError } from '../testing/catch-error.js';
import { formatTime, parseTime } from './time.js';

const iso = (value: string): string => {
  const parsed = parseTime(value, 'since');
  if (!parsed) throw new Error('expected a time');
  return parsed.toISOString();
};

describe('parseTime', () => {
  it('answers undefined when absent', () => {
    expect(parseTime(undefined, 'since')).toBeUndefined();
  });

  it.each([
    ['2026-10-01', '2026-10-01T00:00:00.000Z'],
    ['2026-10-01T09:00:00Z', '2026-10-01T09:00:00.000Z'],
    ['2026-10-01T09:00:00.123Z', '2026-10-01T09:00:00.123Z'],
    ['2026-10-01T11:00:00+02:00', '2026-10-01T09:00:00.000Z'],
    ['2026-10-01T04:30:00-04:30', '2026-10-01T09:00:00.000Z'],
    ['2026-10-01T09:00:00+00:00', '2026-10-01T09:00:00.000Z'],
    ['2026-10-01T09:00:00-00:00', '2026-10-01T09:00:00.000Z'],
    ['2026-10-01T09:00:00.123456Z', '2026-10-01T09:00:00.123Z'],
    ['2026-10-01T09:00:00.9999999Z', '2026-10-01T09:00:00.999Z'],
    ['2026-10-01T09:00:00.1Z', '2026-10-01T09:00:00.100Z'],
    ['2026-10-01T09:00:00.12Z', '2026-10-01T09:00:00.120Z'],
    ['2026-10-01T09:00:00.5+01:00', '2026-10-01T08:00:00.500Z'],
    ['2026-10-01T00:30:00+01:00', '2026-09-30T23:30:00.000Z'],
    ['2026-12-31T23:59:59.999Z', '2026-12-31T23:59:59.999Z'],
    ['2028-02-29', '2028-02-29T00:00:00.000Z'],
    ['2000-02-29', '2000-02-29T00:00:00.000Z'],
    ['0050-06-01', '0050-06-01T00:00:00.000Z'],
  ])('reads %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it('gives back exactly the time the API wrote', () => {
    const written = new Date(Date.UTC(2026, 9, 1, 9, 0, 0, 7));
    expect(parseTime(formatTime(written), 'since')?.getTime()).toBe(written.getTime());
    expect(formatTime(written)).toBe('2026-10-01T09:00:00.007Z');
  });

  it.each([
    '2026-13-01', '2026-00-10', '2026-10-00', '2026-10-32', '2026-02-30', '2026-02-29', '1900-02-29',
    '2026-04-31', 'yesterday', 'now', '', ' ', '2026-10-01T25:00:00Z', '2026-10-01T24:00:00Z',
    '2026-10-01T09:60:00Z', '2026-10-01T09:00:60Z', '1696150800', '1696150800000', '2026-10-01T09:00:00',
    '2026-10-01T09:00:00.123', '2026-10-01T09:00:00 02:00', '2026-10-01T09:00:00 +02:00',
    '2026-10-01T09:00:00+0200', '2026-10-01T09:00:00+02', '2026-10-01T09:00:00+24:00', '2026-10-01T09:00:00+02:60',
    '2026-10-01T09:00Z', '2026-10-01T9:00:00Z', '2026-10-01 09:00:00Z', '2026-10-01T09:00:00.Z', '26-10-01',
    '2026-1-01', '2026/10/01', '+2026-10-01', '2026-10-01Z', ' 2026-10-01', '2026-10-01 ', '2026-10-01T09:00:00ZZ',
    '2026-10-01t09:00:00z', '2026-10-01T09:00:00Z\n',
  ])('refuses %j with 400 invalid_parameter naming the parameter', (text) => {
    const error = catchError(() => parseTime(text, 'updated_since'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect((error as ApiError).message).toContain('updated_since');
  });

  it.each([[['2026-10-01', '2026-10-02']], [1696150800], [null], [{}]])('refuses a non-text value %j', (value) => {
    expect(catchError(() => parseTime(value, 'since'))).toMatchObject({ status: 400, code: 'invalid_parameter' });
  });
});
