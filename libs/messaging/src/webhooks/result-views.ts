import type { CandidateAssessmentState, CandidateRef, ResultState } from '#domain';
import { candidateRefView, reportUrl, toResultView, type ResultView } from '#read-models';

export type { ResultView };
export { reportUrl };

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

/** Webhooks show results through the same lock rule as every API answer (read models' `toResultView`). */
export const resultView = (state: ResultState): ResultView =>
  toResultView({
    id: state.resultId, testSlug: state.test.slug, testName: state.test.name, testType: state.test.type,
    completedAt: state.completedAt, unlockedAt: state.unlockedAt, scores: state.scores,
  });

/** Results in the order they were finished (ties by id), so a payload never depends on map order. */
export const resultViews = (entry: CandidateAssessmentState): ResultView[] =>
  Object.values(entry.results)
    .map(resultView)
    .sort((a, b) => (a.completedAt === b.completedAt ? (a.id < b.id ? -1 : 1) : a.completedAt < b.completedAt ? -1 : 1));

export const completionView = (input: {
  appUrl: string;
  candidate: CandidateRef;
  assessment: { id: string; name: string };
  completedAt: string;
  results: ResultView[];
}): CompletionView => ({
  id: `${input.candidate.id}:${input.assessment.id}`,
  candidate: candidateRefView(input.candidate),
  assessment: { id: input.assessment.id, name: input.assessment.name },
  completedAt: input.completedAt,
  unlocked: input.results.length > 0 && input.results.every((result) => result.unlocked),
  results: input.results,
  reportUrl: reportUrl(input.appUrl, input.candidate.id),
});
