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

/** A whole-number query parameter within bounds; absent gives the default. */
export const parseLimit = (value: unknown, options: LimitOptions = {}): number => {
  const { default: fallback = 50, min = 1, max = 100, name = 'limit' } = options;
  if (value === undefined) return fallback;
  const invalid = () => apiError('invalid_parameter', `${name} must be a whole number from ${min} to ${max}.`);
  let parsed: number;
  if (typeof value === 'string' && DIGITS.test(value)) parsed = Number(value);
  else if (typeof value === 'number' && Number.isInteger(value)) parsed = value;
  else throw invalid();
  if (parsed < min || parsed > max) throw invalid();
  return parsed;
};
