import type { Mode } from '#domain';
import type { Condition, DocumentQuery, DocumentStore } from '../shared/document-store.port.js';
import { findPage, findServedPage, type Page, type ServedPage } from '../shared/page.js';
import { servedCandidateJson } from './candidate.view.js';
import { candidatesProjection, type CandidateDocument } from './candidates.projection.js';

/** Another workspace's or the other mode's candidate is answered exactly like a missing one. */
export const getCandidate = async (store: DocumentStore, workspaceId: string, mode: Mode, candidateId: string): Promise<CandidateDocument | null> => {
  const found = await store.get<CandidateDocument>(candidatesProjection.name, candidateId);
  return found !== null && found.workspaceId === workspaceId && found.mode === mode ? found : null;
};

export interface ListCandidatesOptions {
  workspaceId: string;
  mode: Mode;
  assessmentId?: string;
  /** Matched case-insensitively: addresses are stored trimmed and lower case. */
  email?: string;
  /** Inclusive, `YYYY-MM-DDTHH:mm:ss.sssZ`. */
  updatedSince?: string;
  limit: number;
  /** `next` of the previous page: [createdAt, id]. */
  after?: readonly string[];
}

const scope = (workspaceId: string, mode: Mode): Condition[] => [
  { field: 'workspaceId', op: 'eq', value: workspaceId },
  { field: 'mode', op: 'eq', value: mode },
];

/** Newest first: createdAt, then id, both descending. */
const candidatesQuery = (options: ListCandidatesOptions): DocumentQuery => {
  const where = scope(options.workspaceId, options.mode);
  if (options.assessmentId !== undefined) where.push({ field: 'assessmentIds', op: 'contains', value: options.assessmentId });
  if (options.email !== undefined) where.push({ field: 'email', op: 'eq', value: options.email.trim().toLowerCase() });
  if (options.updatedSince !== undefined) where.push({ field: 'updatedAt', op: 'gte', value: options.updatedSince });
  return { where, orderBy: [{ field: 'createdAt', direction: 'desc' }, { field: 'id', direction: 'desc' }], after: options.after, limit: options.limit };
};

export const listCandidates = (store: DocumentStore, options: ListCandidatesOptions): Promise<Page<CandidateDocument>> =>
  findPage<CandidateDocument>(store, candidatesProjection.name, candidatesQuery(options), (doc) => [doc.createdAt, doc.id]);

/** The same page as `listCandidates`, as the JSON GET /v1/candidates serves for each row. */
export const listServedCandidates = (store: DocumentStore, options: ListCandidatesOptions): Promise<ServedPage> =>
  findServedPage(store, candidatesProjection.name, candidatesQuery(options), (doc) => servedCandidateJson(doc as CandidateDocument));

/** For the original endpoint's `count`. */
export const countCandidates = (store: DocumentStore, options: { workspaceId: string; mode: Mode }): Promise<number> =>
  store.count(candidatesProjection.name, scope(options.workspaceId, options.mode));

export interface CandidatesPageOptions {
  workspaceId: string;
  mode: Mode;
  offset: number;
  limit: number;
  order: 'asc' | 'desc';
}

/** The original endpoint pages by number; ties on createdAt are ordered by id the same way. */
export const listCandidatesPage = (store: DocumentStore, options: CandidatesPageOptions): Promise<CandidateDocument[]> =>
  store.find<CandidateDocument>(candidatesProjection.name, {
    where: scope(options.workspaceId, options.mode),
    orderBy: [{ field: 'createdAt', direction: options.order }, { field: 'id', direction: options.order }],
    offset: options.offset,
    limit: options.limit,
  });

/** The internal application's view of an assessment: its candidates of both modes, newest first. */
export const listCandidatesOfAssessment = (store: DocumentStore, assessmentId: string, limit: number): Promise<CandidateDocument[]> =>
  store.find<CandidateDocument>(candidatesProjection.name, {
    where: [{ field: 'assessmentIds', op: 'contains', value: assessmentId }],
    orderBy: [{ field: 'createdAt', direction: 'desc' }, { field: 'id', direction: 'desc' }],
    limit,
  });
