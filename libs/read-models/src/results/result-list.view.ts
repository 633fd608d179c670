import { candidateRefView, reportUrl, toResultView, type AssessmentRef, type CandidateRef, type ResultView, type StoredResult } from '#domain';
import { assessmentRefView } from '../shared/result-view.js';
import { APP_URL_MARK, markedLinkJson } from '../shared/served-json.js';
import type { ResultDocument } from './results.projection.js';

/** A row of GET /v1/results: a Result (2.6) with who took it and where. */
export interface ResultListView extends ResultView {
  candidate: CandidateRef;
  assessment: AssessmentRef;
  reportUrl: string;
}

export const storedResultOf = (doc: ResultDocument): StoredResult => ({
  id: doc.id, testSlug: doc.testSlug, testName: doc.testName, testType: doc.testType,
  completedAt: doc.completedAt, unlockedAt: doc.unlockedAt, scores: doc.scores,
});

export const toResultListView = (doc: ResultDocument, appUrl: string): ResultListView => {
  const view = toResultView(storedResultOf(doc));
  return {
    id: view.id, testSlug: view.testSlug, testName: view.testName, testType: view.testType, completedAt: view.completedAt,
    unlocked: view.unlocked, unlockedAt: view.unlockedAt, scorePercentage: view.scorePercentage, speedCompleted: view.speedCompleted,
    questionsAnswered: view.questionsAnswered, questionsCorrect: view.questionsCorrect, questionsIncorrect: view.questionsIncorrect,
    questionsTotal: view.questionsTotal, result: view.result, scores: view.scores,
    candidate: candidateRefView(doc.candidate),
    assessment: assessmentRefView(doc.assessment),
    reportUrl: reportUrl(appUrl, doc.candidateId),
  };
};

/** The row's JSON as GET /v1/results serves it, stored at every write (APP_URL left as a marker). */
export const servedResultJson = (doc: ResultDocument): string => {
  const view = toResultListView(doc, APP_URL_MARK);
  const json = JSON.stringify(view);
  // reportUrl is the last field: swap its escaped marker for the raw one the reader fills in.
  const tail = `${JSON.stringify(view.reportUrl)}}`;
  return `${json.slice(0, json.length - tail.length)}${markedLinkJson(view.reportUrl)}}`;
};
