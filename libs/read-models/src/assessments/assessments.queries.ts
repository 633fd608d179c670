import type { Condition, DocumentStore } from '../shared/document-store.port.js';
import { findPage, type Page } from '../shared/page.js';
import { assessmentsProjection, type AssessmentDocument } from './assessments.projection.js';

/** An assessment of another workspace is answered exactly like one that does not exist. */
export const getAssessment = async (store: DocumentStore, workspaceId: string, assessmentId: string): Promise<AssessmentDocument | null> => {
  const found = await store.get<AssessmentDocument>(assessmentsProjection.name, assessmentId);
  return found !== null && found.workspaceId === workspaceId ? found : null;
};

export interface ListAssessmentsOptions {
  status?: AssessmentDocument['status'];
  limit: number;
  /** `next` of the previous page: [createdAt, id]. */
  after?: readonly string[];
}

/** Newest first: createdAt, then id, both descending. */
export const listAssessments = (store: DocumentStore, workspaceId: string, options: ListAssessmentsOptions): Promise<Page<AssessmentDocument>> => {
  const where: Condition[] = [{ field: 'workspaceId', op: 'eq', value: workspaceId }];
  if (options.status !== undefined) where.push({ field: 'status', op: 'eq', value: options.status });
  return findPage<AssessmentDocument>(
    store,
    assessmentsProjection.name,
    {
      where,
      orderBy: [{ field: 'createdAt', direction: 'desc' }, { field: 'id', direction: 'desc' }],
      after: options.after,
      limit: options.limit,
    },
    (doc) => [doc.createdAt, doc.id],
  );
};

/** The ids of every assessment of a workspace, in no order (a deletion and an erasure read each from the log). */
export const listAssessmentIds = async (store: DocumentStore, workspaceId: string): Promise<string[]> =>
  (await store.find<AssessmentDocument>(assessmentsProjection.name, { where: [{ field: 'workspaceId', op: 'eq', value: workspaceId }], orderBy: [], limit: 100_000 }))
    .map(({ id }) => id);

export const countAssessments = (store: DocumentStore, workspaceId: string): Promise<number> =>
  store.count(assessmentsProjection.name, [{ field: 'workspaceId', op: 'eq', value: workspaceId }]);
