/** Validation rules of product-decisions.md, as pure functions shared by every decider. */

export const MAX_NAME_LENGTH = 255;
export const MAX_EMAIL_LENGTH = 254;

/** Text the service can keep: no U+0000 and no unpaired surrogate (PostgreSQL refuses both). */
export const isStorableText = (value: string): boolean => !value.includes('\u0000') && value.isWellFormed();

/** Trimmed and lower-cased, or null when the value is not a string. */
export const normalizeEmail = (value: unknown): string | null => (typeof value === 'string' ? value.trim().toLowerCase() : null);

/** One `@`, a non-empty local part, a domain with a dot, at most 254 characters, no white space. */
export const isValidEmail = (email: string): boolean => {
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH || !isStorableText(email)) return false;
  if (/\s/.test(email)) return false;
  const parts = email.split('@');
  if (parts.length !== 2) return false;
  const [local, domain] = parts;
  if (!local || !domain) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => label.length > 0) && !/[\u0000-\u001f\u007f]/.test(email);
};

/** Absent is fine (`""`); present must be a string of at most 255 characters. */
export const isValidPersonName = (value: unknown): boolean =>
  value === undefined || (typeof value === 'string' && value.length <= MAX_NAME_LENGTH && isStorableText(value));

export const personNameOrEmpty = (value: unknown): string => (typeof value === 'string' ? value : '');

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` that names a real calendar date. */
export const isCalendarDate = (value: string): boolean => {
  const match = DAY.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

/** Today's date (UTC) of an ISO time, as `YYYY-MM-DD`. */
export const utcDay = (isoTime: string): string => isoTime.slice(0, 10);

/** Past its deadline once today's date (UTC) is after it. */
export const isPastDeadline = (deadline: string | null, now: string): boolean => deadline !== null && utcDay(now) > deadline;

export const isWholeNumber = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
