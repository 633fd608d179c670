import type { CandidateAssessmentState, CandidateRef, ResultState } from '../../../domain/src/index.js';

/** A Result as API 2.6 shows it, with the lock rule applied. */
export interface ResultView {
  id: string;
  testSlug: string;
  testName: string;
  testType: string;
  completedAt: string;
  unlocked: boolean;
  unlockedAt: string | null;
  scorePercentage: number | null;
  speedCompleted: number | null;
  questionsAnswered: number | null;
  questionsCorrect: number | null;
  questionsIncorrect: number | null;
  questionsTotal: number | null;
  result: string | null;
  scores: Record<string, unknown> | null;
}

/** A Completion as API 2.7 shows it. */
export interface CompletionView {
  id: string;
  candidate: CandidateRef;
  assessment: { id: string; name: string };
  completedAt: string;
  unlocked: boolean;
  results: ResultView[];
  reportUrl: string;
}

/** While a result is locked every score field is null, exactly as the API shows it (API 2.6 rule). */
export const resultView = (state: ResultState): ResultView => {
  const base = { id: state.resultId, testSlug: state.test.slug, testName: state.test.name, testType: state.test.type, completedAt: state.completedAt };
  if (state.unlockedAt === null) {
    return {
      ...base, unlocked: false, unlockedAt: null, scorePercentage: null, speedCompleted: null, questionsAnswered: null,
      questionsCorrect: null, questionsIncorrect: null, questionsTotal: null, result: null, scores: null,
    };
  }
  const { scores } = state;
  return {
    ...base, unlocked: true, unlockedAt: state.unlockedAt,
    scorePercentage: scores.scorePercentage, speedCompleted: scores.speedCompleted, questionsAnswered: scores.questionsAnswered,
    questionsCorrect: scores.questionsCorrect, questionsIncorrect: scores.questionsIncorrect, questionsTotal: scores.questionsTotal,
    result: scores.result, scores: scores.scores,
  };
};

/** Results in the order they were finished (ties by id), so a payload never depends on map order. */
export const resultViews = (entry: CandidateAssessmentState): ResultView[] =>
  Object.values(entry.results)
    .map(resultView)
    .sort((a, b) => (a.completedAt === b.completedAt ? (a.id < b.id ? -1 : 1) : a.completedAt < b.completedAt ? -1 : 1));

export const reportUrl = (appUrl: string, candidateId: string): string => `${appUrl}/candidates/${candidateId}/report`;

export const completionView = (input: {
  appUrl: string;
  candidate: CandidateRef;
  assessment: { id: string; name: string };
  completedAt: string;
  results: ResultView[];
}): CompletionView => ({
  id: `${input.candidate.id}:${input.assessment.id}`,
  candidate: input.candidate,
  assessment: input.assessment,
  completedAt: input.completedAt,
  unlocked: input.results.length > 0 && input.results.every((result) => result.unlocked),
  results: input.results,
  reportUrl: reportUrl(input.appUrl, input.candidate.id),
});
