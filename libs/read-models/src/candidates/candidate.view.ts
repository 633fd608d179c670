import { reportUrl, toResultView, type ResultView } from '#domain';
import { allUnlocked } from '../shared/result-view.js';
import { APP_URL_MARK, markedLinkJson } from '../shared/served-json.js';
import type { CandidateDocument, CandidateProgress } from './candidates.projection.js';

/** API 2.5 `assessments[]` entry. */
export interface CandidateAssessmentView {
  id: string;
  name: string;
  status: CandidateProgress;
  completedAt: string | null;
  unlocked: boolean;
  results: ResultView[];
}

/** API 2.5 Candidate. */
export interface CandidateView {
  id: string;
  email: string;
  firstName: string;
  surname: string;
  createdAt: string;
  updatedAt: string;
  reportUrl: string;
  assessments: CandidateAssessmentView[];
}

export const toCandidateView = (doc: CandidateDocument, appUrl: string): CandidateView => ({
  id: doc.id,
  email: doc.email,
  firstName: doc.firstName,
  surname: doc.surname,
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
  reportUrl: reportUrl(appUrl, doc.id),
  assessments: doc.assessments.map((entry) => ({
    id: entry.id,
    name: entry.name,
    status: entry.status,
    completedAt: entry.completedAt,
    unlocked: allUnlocked(entry.results),
    results: entry.results.map(toResultView),
  })),
});

/** The candidate's JSON as GET /v1/candidates serves it, stored at every write (APP_URL left as a marker). */
export const servedCandidateJson = (doc: CandidateDocument): string => {
  const view = toCandidateView(doc, APP_URL_MARK);
  const head = JSON.stringify({ id: view.id, email: view.email, firstName: view.firstName, surname: view.surname, createdAt: view.createdAt, updatedAt: view.updatedAt });
  return `${head.slice(0, -1)},"reportUrl":${markedLinkJson(view.reportUrl)},"assessments":${JSON.stringify(view.assessments)}}`;
};
