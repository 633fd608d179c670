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
  // A date alone is midnight UTC.
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = match;
  const [fraction = '', sign, offsetHour = '0', offsetMinute = '0'] = match.slice(7);
  const [h, mi, s, oh, om] = [hour, minute, second, offsetHour, offsetMinute].map(Number);
  const mo = Number(month) - 1;
  if (h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59) return null;
  // Truncated, not rounded: a time the API wrote with milliseconds must select exactly itself.
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
  // Date.UTC maps years 0-99 to 1900-1999, so the year is set separately. A day past the end of its
  // month (or a month past 12) rolls over into the next: such a date does not exist.
  const local = new Date(Date.UTC(2000, mo, Number(day), h, mi, s, ms));
  local.setUTCFullYear(Number(year), mo, Number(day));
  if (local.getUTCMonth() !== mo) return null;
  const instant = new Date(local.getTime() - (sign === '-' ? -1 : 1) * (oh * 60 + om) * 60_000);
  return Number.isNaN(instant.getTime()) ? null : instant;
};
