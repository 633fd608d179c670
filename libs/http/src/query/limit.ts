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
