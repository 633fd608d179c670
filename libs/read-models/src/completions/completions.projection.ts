import { completionUpdatedAt, type AssessmentRef, type CandidateRef, type Mode, type StoredResult } from '#domain';
import { ordered, type Projection } from '../shared/projection.js';
import { unlockResult } from '../shared/result-view.js';

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
  /** Once completed: the later of `completedAt` and the latest unlock of its results (`updated_since` filters and sorts on it); null before. */
  updatedAt: string | null;
  results: StoredResult[];
}

export const completionId = (candidateId: string, assessmentId: string): string => `${candidateId}:${assessmentId}`;

type CompletionSource = { candidateId: string; workspaceId: string; mode: Mode; assessmentId: string; candidate: CandidateRef; assessmentName: string };

const started = ({ candidateId, workspaceId, mode, assessmentId, candidate, assessmentName }: CompletionSource): CompletionDocument => ({
  id: completionId(candidateId, assessmentId), workspaceId, mode, candidateId, candidate, assessmentId,
  assessment: { id: assessmentId, name: assessmentName }, completedAt: null, updatedAt: null, results: [],
});

/** `updatedAt` recomputed from the document itself, so a replay can only give the same value. */
const withUpdatedAt = (doc: CompletionDocument): CompletionDocument =>
  ({ ...doc, updatedAt: doc.completedAt === null ? null : completionUpdatedAt(doc.completedAt, doc.results) });

export const completionsProjection: Projection<CompletionDocument> = {
  /*
   * Version 2 (API 1.2.0 added `updatedAt`, which `updated_since` filters on): a new name is a new
   * collection and a new checkpoint, so the first start of this version builds it from the log as it
   * builds any new read model, while processes of the version before keep reading and writing
   * their `completions` undisturbed during a rolling deploy (docs/architecture.md, "Read side").
   */
  name: 'completions-v2',
  indexes: [
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['completedAt', 'asc'], ['id', 'asc']),
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['assessmentId', 'asc'], ['completedAt', 'asc'], ['id', 'asc']),
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['updatedAt', 'asc'], ['id', 'asc']),
    ordered(['workspaceId', 'asc'], ['mode', 'asc'], ['assessmentId', 'asc'], ['updatedAt', 'asc'], ['id', 'asc']),
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
        return withUpdatedAt({ ...doc, results: [...doc.results, result] });
      }
      case 'AssessmentCompleted': {
        const doc = document ?? started(event.data);
        return doc.completedAt === null ? withUpdatedAt({ ...doc, completedAt: event.data.completedAt }) : doc;
      }
      case 'ResultUnlocked':
        return document === null ? null : withUpdatedAt({ ...document, results: unlockResult(document.results, event.data.resultId, event.data.unlockedAt) });
      case 'CandidateDeleted':
        return null;
      default:
        return document;
    }
  },
};
