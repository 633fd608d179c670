import type { AssessmentRef, CandidateRef, Mode } from '#domain';
import { ordered, type Projection } from '../shared/projection.js';
import { unlockResult, type StoredResult } from '../shared/result-view.js';

/** One candidate on one assessment; listed once `completedAt` is set. */
export interface CompletionDocument {
  /** `candidateId:assessmentId`: never changes, usable for de-duplication. */
  id: string;
  workspaceId: string;
  mode: Mode;
  candidateId: string;
  candidate: CandidateRef;
  assessmentId: string;
  assessment: AssessmentRef;
  completedAt: string | null;
  results: StoredResult[];
}

export const completionId = (candidateId: string, assessmentId: string): string => `${candidateId}:${assessmentId}`;

type CompletionSource = { candidateId: string; workspaceId: string; mode: Mode; assessmentId: string; candidate: CandidateRef; assessmentName: string };

const started = (source: CompletionSource): CompletionDocument => ({
  id: completionId(source.candidateId, source.assessmentId),
  workspaceId: source.workspaceId,
  mode: source.mode,
  candidateId: source.candidateId,
  candidate: source.candidate,
  assessmentId: source.assessmentId,
  assessment: { id: source.assessmentId, name: source.assessmentName },
  completedAt: null,
  results: [],
});

export const completionsProjection: Projection<CompletionDocument> = {
  name: 'completions',
  indexes: [
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['completedAt', 'asc'], ['id', 'asc']),
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['assessmentId', 'asc'], ['completedAt', 'asc'], ['id', 'asc']),
  ],
  eventTypes: ['TestCompleted', 'AssessmentCompleted', 'ResultUnlocked', 'CandidateDeleted'],
  documentIds(event) {
    switch (event.type) {
      case 'TestCompleted':
      case 'AssessmentCompleted':
      case 'ResultUnlocked':
        return [completionId(event.data.candidateId, event.data.assessmentId)];
      case 'CandidateDeleted':
        return event.data.assessmentIds.map((assessmentId) => completionId(event.data.candidateId, assessmentId));
      default:
        return [];
    }
  },
  evolve(document, event) {
    switch (event.type) {
      case 'TestCompleted': {
        const { resultId, test, completedAt, scores } = event.data;
        const doc = document ?? started(event.data);
        if (doc.results.some((result) => result.id === resultId)) return doc;
        const result: StoredResult = { id: resultId, testSlug: test.slug, testName: test.name, testType: test.type, completedAt, unlockedAt: null, scores };
        return { ...doc, results: [...doc.results, result] };
      }
      case 'AssessmentCompleted': {
        const doc = document ?? started(event.data);
        return doc.completedAt === null ? { ...doc, completedAt: event.data.completedAt } : doc;
      }
      case 'ResultUnlocked':
        return document === null ? null : { ...document, results: unlockResult(document.results, event.data.resultId, event.data.unlockedAt) };
      case 'CandidateDeleted':
        return null;
      default:
        return document;
    }
  },
};
