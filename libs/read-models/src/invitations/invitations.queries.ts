import type { DocumentStore } from '../shared/document-store.port.js';
import { invitationsProjection, type PendingInvitationDocument } from './invitations.projection.js';

/** The pending invitations of one address in a workspace (at most one per assessment). */
export const listPendingInvitations = (store: DocumentStore, workspaceId: string, email: string): Promise<PendingInvitationDocument[]> =>
  store.find<PendingInvitationDocument>(invitationsProjection.name, {
    where: [{ field: 'workspaceId', op: 'eq', value: workspaceId }, { field: 'email', op: 'eq', value: email }],
    orderBy: [{ field: 'id', direction: 'asc' }],
    limit: 1000,
  });
