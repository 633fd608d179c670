import type { Mode, TestRef } from '#domain';
import { ordered, type Projection } from '../shared/projection.js';

export interface AssessmentDocument {
  id: string;
  workspaceId: string;
  name: string;
  status: 'active' | 'archived';
  createdAt: string;
  deadline: string | null;
  tests: TestRef[];
  inviteToken: string;
  /** Registered candidates per mode: each key reads the count of its own mode. */
  candidateCount: Record<Mode, number>;
}

export const assessmentsProjection: Projection<AssessmentDocument> = {
  name: 'assessments',
  indexes: [
    ordered(['workspaceId', 'asc'], ['createdAt', 'desc'], ['id', 'desc']),
    ordered(['workspaceId', 'asc'], ['status', 'asc'], ['createdAt', 'desc'], ['id', 'desc']),
  ],
  eventTypes: ['AssessmentCreated', 'AssessmentTestAdded', 'AssessmentClosed', 'AssessmentCandidateAdded', 'AssessmentCandidateRemoved'],
  documentIds: (event) => ('assessmentId' in event.data ? [event.data.assessmentId] : []),
  evolve(document, event) {
    if (event.type === 'AssessmentCreated') {
      const { assessmentId, workspaceId, name, tests, deadline, inviteToken, createdAt } = event.data;
      return { id: assessmentId, workspaceId, name, status: 'active', createdAt, deadline, tests, inviteToken, candidateCount: { live: 0, sandbox: 0 } };
    }
    if (document === null) return null;
    switch (event.type) {
      case 'AssessmentTestAdded':
        return { ...document, tests: [...document.tests, event.data.test] };
      case 'AssessmentClosed':
        return { ...document, status: 'archived' };
      case 'AssessmentCandidateAdded': {
        const { mode } = event.data;
        return { ...document, candidateCount: { ...document.candidateCount, [mode]: document.candidateCount[mode] + 1 } };
      }
      case 'AssessmentCandidateRemoved': {
        const { mode } = event.data;
        return { ...document, candidateCount: { ...document.candidateCount, [mode]: Math.max(0, document.candidateCount[mode] - 1) } };
      }
      default:
        return document;
    }
  },
};
