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
export const singleTextMessage = (name: string, maxLength: number): string => `${name} must be given once, as text of at most ${maxLength} characters.`;
