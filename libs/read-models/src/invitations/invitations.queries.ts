import type { DocumentStore } from '../shared/document-store.port.js';
import { invitationsProjection, type PendingInvitationDocument } from './invitations.projection.js';

/** The pending invitations of one address in a workspace (at most one per assessment). */
export const listPendingInvitations = (store: DocumentStore, workspaceId: string, email: string): Promise<PendingInvitationDocument[]> =>
  store.find<PendingInvitationDocument>(invitationsProjection.name, {
    where: [{ field: 'workspaceId', op: 'eq', value: workspaceId }, { field: 'email', op: 'eq', value: email }],
    orderBy: [{ field: 'id', direction: 'asc' }],
    limit: 1000,
  });

/** The invitations of one assessment nobody has used yet (the internal application lists them with their links). */
export const listPendingInvitationsOfAssessment = (store: DocumentStore, assessmentId: string, limit: number): Promise<PendingInvitationDocument[]> =>
  store.find<PendingInvitationDocument>(invitationsProjection.name, {
    where: [{ field: 'assessmentId', op: 'eq', value: assessmentId }],
    orderBy: [{ field: 'id', direction: 'asc' }],
    limit,
  });
