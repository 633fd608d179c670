import type { Mode } from '#domain';
import type { Condition, DocumentQuery, DocumentStore } from '../shared/document-store.port.js';
import { completionsProjection, type CompletionDocument } from './completions.projection.js';

export type FinishedCompletion = CompletionDocument & { completedAt: string; updatedAt: string };

export interface ListCompletionsOptions {
  workspaceId: string;
  mode: Mode;
  assessmentId?: string;
  /** Inclusive lower bound on completedAt. */
  since?: string;
  /** Inclusive lower bound on updatedAt; the list is then sorted by updatedAt. */
  updatedSince?: string;
  /** Default descending (newest first). */
  order?: 'asc' | 'desc';
  limit: number;
}

const isFinished = (doc: CompletionDocument): doc is FinishedCompletion => doc.completedAt !== null && doc.updatedAt !== null;

/** The query behind GET /v1/completions: each filter shape has an index that answers it in order. */
export const completionsQuery = (options: ListCompletionsOptions): DocumentQuery => {
  const where: Condition[] = [
    { field: 'workspaceId', op: 'eq', value: options.workspaceId },
    { field: 'mode', op: 'eq', value: options.mode },
  ];
  const byUpdate = options.updatedSince !== undefined;
  // updatedAt is set exactly when completedAt is: either bound keeps unfinished ones out.
  if (options.updatedSince !== undefined) where.push({ field: 'updatedAt', op: 'gte', value: options.updatedSince });
  else where.push({ field: 'completedAt', op: 'notNull' });
  if (options.assessmentId !== undefined) where.push({ field: 'assessmentId', op: 'eq', value: options.assessmentId });
  if (options.since !== undefined) where.push({ field: 'completedAt', op: 'gte', value: options.since });
  const direction = options.order ?? 'desc';
  return { where, orderBy: [{ field: byUpdate ? 'updatedAt' : 'completedAt', direction }, { field: 'id', direction }], limit: options.limit };
};

/**
 * Only assessments the candidate finished; no cursor (API 4.3): poll with `since` (on completedAt)
 * or `updated_since` (on updatedAt, which an unlock moves) and `order=asc`.
 */
export const listCompletions = async (store: DocumentStore, options: ListCompletionsOptions): Promise<FinishedCompletion[]> =>
  (await store.find<CompletionDocument>(completionsProjection.name, completionsQuery(options))).filter(isFinished);
