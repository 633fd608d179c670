import { apiError } from '../errors/api-error.js';

/*
 * A date (midnight UTC) or a date-time with seconds, optional fraction and a zone (`Z` or ±HH:MM).
 * A zone is required: a local time would be read differently by every server. A `+` the client
 * did not URL-encode arrives as a space and is refused, instead of guessing the sign.
 */
const TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2})))?$/;

/** A time query parameter, or undefined when absent; anything else is 400 invalid_parameter. */
export const parseTime = (value: unknown, name: string): Date | undefined => {
  if (value === undefined) return undefined;
  const parsed = typeof value === 'string' ? parseIsoTime(value) : null;
  if (!parsed) throw apiError('invalid_parameter', timeMessage(name));
  return parsed;
};

export const timeMessage = (name: string): string => `${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset.`;

/** The form the API writes every time in; parseTime reads it back to the same millisecond. */
export const formatTime = (date: Date): string => date.toISOString();

/** The instant a date or date-time of the contract names, or null when it is not one. */
export const parseIsoTime = (text: string): Date | null => {
  const match = TIME_PATTERN.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction, sign, offsetHour, offsetMinute] = match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  if (hour === undefined) return utcDate(y, mo, d, 0, 0, 0, 0);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  if (h > 23 || mi > 59 || s > 59) return null;
  // Truncated, not rounded: a time the API wrote with milliseconds must select exactly itself.
  const ms = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const oh = Number(offsetHour);
    const om = Number(offsetMinute);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const local = utcDate(y, mo, d, h, mi, s, ms);
  if (!local) return null;
  const instant = new Date(local.getTime() - offsetMinutes * 60_000);
  return Number.isNaN(instant.getTime()) ? null : instant;
};

const daysInMonth = (year: number, month: number): number => {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

// Date.UTC maps years 0-99 to 1900-1999, so the year is set separately.
const utcDate = (y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): Date | null => {
  const date = new Date(Date.UTC(2000, mo - 1, d, h, mi, s, ms));
  date.setUTCFullYear(y, mo - 1, d);
  return Number.isNaN(date.getTime()) ? null : date;
};
