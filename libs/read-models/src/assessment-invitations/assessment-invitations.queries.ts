import type { Mode } from '#domain';
import type { Condition, DocumentQuery, DocumentStore } from '../shared/document-store.port.js';
import { findPage, findServedPage, type Page, type ServedPage } from '../shared/page.js';
import { assessmentInvitationsProjection, type InvitationRowDocument, type InvitationStatus } from './assessment-invitations.projection.js';
import { servedInvitationJson } from './invitation-row.view.js';

export interface ListInvitationsOptions {
  /** The caller has checked that the assessment is the workspace's (404 otherwise). */
  assessmentId: string;
  mode: Mode;
  status?: InvitationStatus;
  limit: number;
  /** `next` of the previous page: [invitedAt, invitationId]. */
  after?: readonly string[];
}

/** Newest first: invitedAt, then the invitation id, both descending (a request's invitations share one time). */
const invitationsQuery = (options: ListInvitationsOptions): DocumentQuery => {
  const where: Condition[] = [
    { field: 'assessmentId', op: 'eq', value: options.assessmentId },
    { field: 'mode', op: 'eq', value: options.mode },
  ];
  if (options.status !== undefined) where.push({ field: 'status', op: 'eq', value: options.status });
  return { where, orderBy: [{ field: 'invitedAt', direction: 'desc' }, { field: 'id', direction: 'desc' }], after: options.after, limit: options.limit };
};

export const listInvitations = (store: DocumentStore, options: ListInvitationsOptions): Promise<Page<InvitationRowDocument>> =>
  findPage<InvitationRowDocument>(store, assessmentInvitationsProjection.name, invitationsQuery(options), (doc) => [doc.invitedAt, doc.id]);

/** The same page as `listInvitations`, as the JSON GET /v1/assessments/{id}/invitations serves for each row. */
export const listServedInvitations = (store: DocumentStore, options: ListInvitationsOptions): Promise<ServedPage> =>
  findServedPage(store, assessmentInvitationsProjection.name, invitationsQuery(options), (doc) => servedInvitationJson(doc as InvitationRowDocument));
