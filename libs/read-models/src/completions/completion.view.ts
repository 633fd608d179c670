import { candidateRefView, reportUrl, toResultView, type CompletionView } from '#domain';
import { allUnlocked, assessmentRefView } from '../shared/result-view.js';
import type { FinishedCompletion } from './completions.queries.js';

/** API 2.7 Completion, the `assessmentCompleted` webhook data too: the domain's shape. */
export type { CompletionView } from '#domain';

export const toCompletionView = (doc: FinishedCompletion, appUrl: string): CompletionView => ({
  id: doc.id,
  candidate: candidateRefView(doc.candidate),
  assessment: assessmentRefView(doc.assessment),
  completedAt: doc.completedAt,
  updatedAt: doc.updatedAt,
  unlocked: allUnlocked(doc.results),
  results: doc.results.map(toResultView),
  reportUrl: reportUrl(appUrl, doc.candidateId),
});
