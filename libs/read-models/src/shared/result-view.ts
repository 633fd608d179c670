import type { StoredResult } from '#domain';

/** API 2.5 / 2.7 `unlocked`: at least one result, and every result unlocked. */
export const allUnlocked = (results: readonly StoredResult[]): boolean =>
  results.length > 0 && results.every((result) => result.unlockedAt !== null);

/** Marks one result unlocked; a second unlock keeps the first time, as the domain does. Written out, not spread (see candidates.projection.ts). */
export const unlockResult = (results: readonly StoredResult[], resultId: string, unlockedAt: string): StoredResult[] =>
  results.map((result) => (result.id === resultId && result.unlockedAt === null
    ? { id: result.id, testSlug: result.testSlug, testName: result.testName, testType: result.testType, completedAt: result.completedAt, unlockedAt, scores: result.scores }
    : result));

/** ISO times in one format compare as text; the later of two, for fields that must never move back. */
export const laterOf = (a: string, b: string): string => (b > a ? b : a);

/** Views rebuild nested objects (jsonb keeps keys in its own order) in the order the API document lists their fields. */
export const assessmentRefView = (ref: { id: string; name: string }) => ({ id: ref.id, name: ref.name });
