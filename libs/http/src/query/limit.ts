import { apiError } from '../errors/api-error.js';

export interface LimitOptions {
  default?: number;
  min?: number;
  max?: number;
  /** Parameter name for the message (`limit`, or `per_page` / `page` on the original endpoint). */
  name?: string;
}

// Decimal digits only: no sign, no spaces, no exponent, no fraction (product decisions).
const DIGITS = /^[0-9]+$/;

/** The whole number a present parameter holds when it is within bounds, otherwise null. */
export const wholeNumberWithin = (value: unknown, min: number, max: number): number | null => {
  let parsed: number;
  if (typeof value === 'string' && DIGITS.test(value)) parsed = Number(value);
  else if (typeof value === 'number' && Number.isInteger(value)) parsed = value;
  else return null;
  return parsed < min || parsed > max ? null : parsed;
};

export const wholeNumberMessage = (name: string, min: number, max: number): string => `${name} must be a whole number from ${min} to ${max}.`;

/** A whole-number query parameter within bounds; absent gives the default. */
export const parseLimit = (value: unknown, options: LimitOptions = {}): number => {
  const { default: fallback = 50, min = 1, max = 100, name = 'limit' } = options;
  if (value === undefined) return fallback;
  const parsed = wholeNumberWithin(value, min, max);
  if (parsed === null) throw apiError('invalid_parameter', wholeNumberMessage(name, min, max));
  return parsed;
};
