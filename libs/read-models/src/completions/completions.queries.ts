import type { Mode } from '#domain';
import type { Condition, DocumentStore } from '../shared/document-store.port.js';
import { completionsProjection, type CompletionDocument } from './completions.projection.js';

export type FinishedCompletion = CompletionDocument & { completedAt: string };

export interface ListCompletionsOptions {
  workspaceId: string;
  mode: Mode;
  assessmentId?: string;
  /** Inclusive lower bound on completedAt. */
  since?: string;
  /** Default descending (newest first). */
  order?: 'asc' | 'desc';
  limit: number;
}

const isFinished = (doc: CompletionDocument): doc is FinishedCompletion => doc.completedAt !== null;

/** Only assessments the candidate finished; no cursor (API 4.3): poll with `since` and `order=asc`. */
export const listCompletions = async (store: DocumentStore, options: ListCompletionsOptions): Promise<FinishedCompletion[]> => {
  const where: Condition[] = [
    { field: 'workspaceId', op: 'eq', value: options.workspaceId },
    { field: 'mode', op: 'eq', value: options.mode },
    { field: 'completedAt', op: 'notNull' },
  ];
  if (options.assessmentId !== undefined) where.push({ field: 'assessmentId', op: 'eq', value: options.assessmentId });
  if (options.since !== undefined) where.push({ field: 'completedAt', op: 'gte', value: options.since });
  const direction = options.order ?? 'desc';
  const rows = await store.find<CompletionDocument>(completionsProjection.name, {
    where,
    orderBy: [{ field: 'completedAt', direction }, { field: 'id', direction }],
    limit: options.limit,
  });
  return rows.filter(isFinished);
};
