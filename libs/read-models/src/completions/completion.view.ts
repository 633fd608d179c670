import type { AssessmentRef, CandidateRef } from '#domain';
import { allUnlocked, assessmentRefView, candidateRefView, reportUrl, toResultView, type ResultView } from '../shared/result-view.js';
import type { FinishedCompletion } from './completions.queries.js';

/** API 2.7 Completion (also the `assessmentCompleted` webhook data). */
export interface CompletionView {
  id: string;
  candidate: CandidateRef;
  assessment: AssessmentRef;
  completedAt: string;
  unlocked: boolean;
  results: ResultView[];
  reportUrl: string;
}

export const toCompletionView = (doc: FinishedCompletion, appUrl: string): CompletionView => ({
  id: doc.id,
  candidate: candidateRefView(doc.candidate),
  assessment: assessmentRefView(doc.assessment),
  completedAt: doc.completedAt,
  unlocked: allUnlocked(doc.results),
  results: doc.results.map(toResultView),
  reportUrl: reportUrl(appUrl, doc.candidateId),
});
