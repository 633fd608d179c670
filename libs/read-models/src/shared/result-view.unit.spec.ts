import { scoresOf } from '../test-support/domain-fixtures.js';
import { toResultView, type StoredResult } from '#domain';
import { allUnlocked, unlockResult } from './result-view.js';

const stored = (unlockedAt: string | null): StoredResult => ({
  id: 'r1', testSlug: 'numerical', testName: 'Numerical', testType: 'library', completedAt: '2026-10-01T09:00:00.000Z', unlockedAt, scores: scoresOf(81),
});

const SCORE_FIELDS = ['unlockedAt', 'scorePercentage', 'speedCompleted', 'questionsAnswered', 'questionsCorrect', 'questionsIncorrect', 'questionsTotal', 'result', 'scores'] as const;

describe('toResultView (the lock rule)', () => {
  it('shows no score while the result is locked', () => {
    const view = toResultView(stored(null));
    expect(view.unlocked).toBe(false);
    for (const field of SCORE_FIELDS) expect(view[field]).toBeNull();
    expect(JSON.stringify(view)).not.toContain('81');
    expect(JSON.stringify(view)).not.toContain('openness');
  });

  it('shows every score once unlocked', () => {
    expect(toResultView(stored('2026-10-02T09:00:00.000Z'))).toEqual({
      id: 'r1', testSlug: 'numerical', testName: 'Numerical', testType: 'library', completedAt: '2026-10-01T09:00:00.000Z',
      unlocked: true, unlockedAt: '2026-10-02T09:00:00.000Z', scorePercentage: 81, speedCompleted: 600, questionsAnswered: 20,
      questionsCorrect: 15, questionsIncorrect: 5, questionsTotal: 20, result: 'pass', scores: { openness: 0.5 },
    });
  });

  it('is unlocked only with at least one result, all unlocked', () => {
    expect(allUnlocked([])).toBe(false);
    expect(allUnlocked([stored('2026-10-02T09:00:00.000Z'), { ...stored(null), id: 'r2' }])).toBe(false);
    expect(allUnlocked([stored('2026-10-02T09:00:00.000Z')])).toBe(true);
  });

  it('keeps the first unlock time when unlocked twice', () => {
    const once = unlockResult([stored(null)], 'r1', '2026-10-02T09:00:00.000Z');
    expect(unlockResult(once, 'r1', '2026-10-03T09:00:00.000Z')[0]?.unlockedAt).toBe('2026-10-02T09:00:00.000Z');
  });
});
