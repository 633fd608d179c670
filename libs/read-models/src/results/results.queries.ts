import type { Mode } from '#domain';
import type { Condition, DocumentQuery, DocumentStore } from '../shared/document-store.port.js';
import { findPage, findServedPage, type Page, type ServedPage } from '../shared/page.js';
import { servedResultJson } from './result-list.view.js';
import { resultsProjection, type ResultDocument } from './results.projection.js';

export interface ListResultsOptions {
  workspaceId: string;
  mode: Mode;
  assessmentId?: string;
  /** Inclusive lower bound on completedAt. */
  since?: string;
  /** Inclusive lower bound on unlockedAt; the list is then sorted by unlockedAt. */
  unlockedSince?: string;
  /** Default ascending (oldest first), for syncing forward. */
  order?: 'asc' | 'desc';
  limit: number;
  /** `next` of the previous page: [completedAt or unlockedAt, id]. */
  after?: readonly string[];
}

const resultsQuery = (options: ListResultsOptions): DocumentQuery => {
  const where: Condition[] = [
    { field: 'workspaceId', op: 'eq', value: options.workspaceId },
    { field: 'mode', op: 'eq', value: options.mode },
  ];
  if (options.assessmentId !== undefined) where.push({ field: 'assessmentId', op: 'eq', value: options.assessmentId });
  if (options.since !== undefined) where.push({ field: 'completedAt', op: 'gte', value: options.since });
  const byUnlock = options.unlockedSince !== undefined;
  if (options.unlockedSince !== undefined) where.push({ field: 'unlockedAt', op: 'gte', value: options.unlockedSince });
  const direction = options.order ?? 'asc';
  return {
    where,
    orderBy: [{ field: byUnlock ? 'unlockedAt' : 'completedAt', direction }, { field: 'id', direction }],
    after: options.after,
    limit: options.limit,
  };
};

export const listResults = (store: DocumentStore, options: ListResultsOptions): Promise<Page<ResultDocument>> =>
  findPage<ResultDocument>(
    store,
    resultsProjection.name,
    resultsQuery(options),
    (doc) => [(options.unlockedSince !== undefined ? doc.unlockedAt : doc.completedAt) ?? '', doc.id],
  );

/** The same page as `listResults`, as the JSON GET /v1/results serves for each row. */
export const listServedResults = (store: DocumentStore, options: ListResultsOptions): Promise<ServedPage> =>
  findServedPage(store, resultsProjection.name, resultsQuery(options), (doc) => servedResultJson(doc as ResultDocument));
