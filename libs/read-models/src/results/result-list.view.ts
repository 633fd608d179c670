import type { AssessmentRef, CandidateRef } from '../../../domain/src/shared/types.js';
import { assessmentRefView, candidateRefView, reportUrl, toResultView, type ResultView } from '../shared/result-view.js';
import { storedResultOf, type ResultDocument } from './results.projection.js';

/** A row of GET /v1/results: a Result (2.6) with who took it and where. */
export interface ResultListView extends ResultView {
  candidate: CandidateRef;
  assessment: AssessmentRef;
  reportUrl: string;
}

export const toResultListView = (doc: ResultDocument, appUrl: string): ResultListView => ({
  ...toResultView(storedResultOf(doc)),
  candidate: candidateRefView(doc.candidate),
  assessment: assessmentRefView(doc.assessment),
  reportUrl: reportUrl(appUrl, doc.candidateId),
});
