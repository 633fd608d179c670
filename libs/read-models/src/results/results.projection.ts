import type { AssessmentRef, CandidateRef, Mode, StoredResult } from '#domain';
import { ordered, type Projection } from '../shared/projection.js';
import { servedResultJson } from './result-list.view.js';

/** One finished test (a StoredResult, as completions keep it), with who took it and on which assessment. */
export interface ResultDocument extends StoredResult {
  workspaceId: string;
  mode: Mode;
  candidateId: string;
  candidate: CandidateRef;
  /** Top-level copy of `assessment.id` for the filter and its index. */
  assessmentId: string;
  assessment: AssessmentRef;
}

export const resultsProjection: Projection<ResultDocument> = {
  name: 'results',
  indexes: [
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['completedAt', 'asc'], ['id', 'asc']),
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['assessmentId', 'asc'], ['completedAt', 'asc'], ['id', 'asc']),
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['unlockedAt', 'asc'], ['id', 'asc']),
  ],
  eventTypes: ['TestCompleted', 'ResultUnlocked', 'CandidateDeleted'],
  served: servedResultJson,
  documentIds(event) {
    switch (event.type) {
      case 'TestCompleted':
      case 'ResultUnlocked':
        return [event.data.resultId];
      case 'CandidateDeleted':
        return event.data.resultIds;
      default:
        return [];
    }
  },
  evolve(document, event) {
    switch (event.type) {
      case 'TestCompleted': {
        // A result is finished once; a repeated event keeps the first.
        if (document !== null) return document;
        const { resultId, workspaceId, mode, candidateId, candidate, assessmentId, assessmentName, test, completedAt, scores } = event.data;
        return {
          id: resultId, workspaceId, mode, candidateId, candidate, assessmentId, assessment: { id: assessmentId, name: assessmentName },
          testSlug: test.slug, testName: test.name, testType: test.type, completedAt, unlockedAt: null, scores,
        };
      }
      case 'ResultUnlocked':
        return document === null || document.unlockedAt !== null ? document : { ...document, unlockedAt: event.data.unlockedAt };
      case 'CandidateDeleted':
        return null;
      default:
        return document;
    }
  },
};
