import type { DocumentStore } from '../shared/document-store.port.js';
import { invitationsProjection, type PendingInvitationDocument } from './invitations.projection.js';

/** The invitations of one assessment nobody has used yet (the internal application lists them with their links). */
export const listPendingInvitationsOfAssessment = (store: DocumentStore, assessmentId: string, limit: number): Promise<PendingInvitationDocument[]> =>
  store.find<PendingInvitationDocument>(invitationsProjection.name, {
    where: [{ field: 'assessmentId', op: 'eq', value: assessmentId }],
    orderBy: [{ field: 'id', direction: 'asc' }],
    limit,
  });
