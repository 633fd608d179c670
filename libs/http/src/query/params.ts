import { apiError } from '../errors/api-error.js';

/**
 * One of a closed set of values, or undefined when absent. A repeated parameter arrives as an
 * array and is refused rather than guessing which copy the client meant.
 */
export const parseEnum = <T extends string>(value: unknown, name: string, allowed: readonly T[]): T | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    const match = allowed.find((candidate) => candidate === value);
    if (match !== undefined) return match;
  }
  throw apiError('invalid_parameter', oneOfMessage(name, allowed));
};

/** A free-text parameter such as an id or an e-mail address; only a single string is accepted. */
export const parseOptionalString = (value: unknown, name: string): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw apiError('invalid_parameter', singleTextMessage(name));
};

export const oneOfMessage = (name: string, allowed: readonly string[]): string => `${name} must be one of: ${allowed.join(', ')}.`;

/**
 * One name of a closed set, or several separated by commas (`a,b`), given once: the distinct names
 * in the order given, or null for anything else (an empty item, an unknown name, a repeated parameter).
 */
export const parseNameList = <T extends string>(value: unknown, allowed: readonly T[]): T[] | null => {
  if (typeof value !== 'string') return null;
  const names: T[] = [];
  for (const item of value.split(',')) {
    const match = allowed.find((candidate) => candidate === item.trim());
    if (match === undefined) return null;
    if (!names.includes(match)) names.push(match);
  }
  return names;
};

export const nameListMessage = (name: string, allowed: readonly string[]): string =>
  `${name} must be one of: ${allowed.join(', ')}; or several of them separated by commas.`;
export const singleTextMessage = (name: string): string => `${name} must be given once, as text.`;
