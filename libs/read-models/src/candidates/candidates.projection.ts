import type { Mode, TestRef } from '#domain';
import { ordered, type Projection } from '../shared/projection.js';
import { servedCandidateJson } from './candidate.view.js';
import { laterOf, unlockResult, type StoredResult } from '../shared/result-view.js';

export type CandidateProgress = 'not_started' | 'in_progress' | 'completed';

export interface CandidateAssessment {
  id: string;
  name: string;
  tests: TestRef[];
  status: CandidateProgress;
  registeredAt: string;
  startedAt: string | null;
  completedAt: string | null;
  results: StoredResult[];
}

/** One person in one workspace and one mode. */
export interface CandidateDocument {
  id: string;
  workspaceId: string;
  mode: Mode;
  email: string;
  firstName: string;
  surname: string;
  createdAt: string;
  updatedAt: string;
  /** Top-level copy of `assessments[].id`, for the `contains` filter and its index. */
  assessmentIds: string[];
  assessments: CandidateAssessment[];
}

const onAssessment = (
  doc: CandidateDocument,
  assessmentId: string,
  changedAt: string,
  change: (entry: CandidateAssessment) => CandidateAssessment,
): CandidateDocument => {
  // Events for an assessment the candidate is not registered on are refused by the domain; nothing to show.
  if (!doc.assessmentIds.includes(assessmentId)) return doc;
  return {
    ...doc,
    updatedAt: laterOf(doc.updatedAt, changedAt),
    assessments: doc.assessments.map((entry) => (entry.id === assessmentId ? change(entry) : entry)),
  };
};

const progressed = (status: CandidateProgress): CandidateProgress => (status === 'completed' ? status : 'in_progress');

export const candidatesProjection: Projection<CandidateDocument> = {
  name: 'candidates',
  indexes: [
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['createdAt', 'desc'], ['id', 'desc']),
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['email', 'asc']),
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['updatedAt', 'asc']),
    { kind: 'contains', field: 'assessmentIds' },
  ],
  eventTypes: ['CandidateCreated', 'CandidateRegistered', 'AssessmentStarted', 'TestCompleted', 'AssessmentCompleted', 'ResultUnlocked', 'CandidateDeleted'],
  documentIds: (event) => ('candidateId' in event.data ? [event.data.candidateId] : []),
  served: servedCandidateJson,
  evolve(document, event) {
    if (event.type === 'CandidateCreated') {
      const { candidateId, workspaceId, mode, email, firstName, surname, createdAt } = event.data;
      return { id: candidateId, workspaceId, mode, email, firstName, surname, createdAt, updatedAt: createdAt, assessmentIds: [], assessments: [] };
    }
    if (document === null) return null;
    switch (event.type) {
      case 'CandidateRegistered': {
        const { assessmentId, assessmentName, tests, registeredAt } = event.data;
        if (document.assessmentIds.includes(assessmentId)) return document;
        const entry: CandidateAssessment = {
          id: assessmentId, name: assessmentName, tests, status: 'not_started', registeredAt, startedAt: null, completedAt: null, results: [],
        };
        return {
          ...document,
          updatedAt: laterOf(document.updatedAt, registeredAt),
          assessmentIds: [...document.assessmentIds, assessmentId],
          assessments: [...document.assessments, entry],
        };
      }
      case 'AssessmentStarted': {
        const { assessmentId, startedAt } = event.data;
        return onAssessment(document, assessmentId, startedAt, (entry) => ({ ...entry, status: progressed(entry.status), startedAt: entry.startedAt ?? startedAt }));
      }
      case 'TestCompleted': {
        const { assessmentId, resultId, test, completedAt, scores } = event.data;
        return onAssessment(document, assessmentId, completedAt, (entry) => {
          if (entry.results.some((result) => result.id === resultId)) return entry;
          const result: StoredResult = { id: resultId, testSlug: test.slug, testName: test.name, testType: test.type, completedAt, unlockedAt: null, scores };
          return { ...entry, status: progressed(entry.status), results: [...entry.results, result] };
        });
      }
      case 'AssessmentCompleted': {
        const { assessmentId, completedAt } = event.data;
        return onAssessment(document, assessmentId, completedAt, (entry) => ({ ...entry, status: 'completed', completedAt }));
      }
      case 'ResultUnlocked': {
        const { assessmentId, resultId, unlockedAt } = event.data;
        const locked = document.assessments.some((entry) => entry.results.some((result) => result.id === resultId && result.unlockedAt === null));
        // Unlocking an unlocked result shows nothing new, so the record is not "updated".
        if (!locked) return document;
        return onAssessment(document, assessmentId, unlockedAt, (entry) => ({ ...entry, results: unlockResult(entry.results, resultId, unlockedAt) }));
      }
      case 'CandidateDeleted':
        return null;
      default:
        return document;
    }
  },
};
