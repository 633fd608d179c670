import type { Mode } from '#domain';
import { ordered, type Projection } from '../shared/projection.js';

/** An invitation nobody has used yet, keyed `assessmentId:email`. Used invitations are not kept. */
export interface PendingInvitationDocument {
  id: string;
  workspaceId: string;
  assessmentId: string;
  email: string;
  mode: Mode;
  invitationId: string;
  /** The personal link's token; absent on documents written before it was kept (a rebuild fills it in). */
  invitationToken?: string;
  invitedAt?: string;
}

const key = (assessmentId: string, email: string): string => `${assessmentId}:${email}`;

/** Which invitations are still pending, by address: what deleting a test candidate must withdraw. */
export const invitationsProjection: Projection<PendingInvitationDocument> = {
  name: 'invitations',
  indexes: [ordered(['workspaceId', 'asc'], ['email', 'asc'])],
  eventTypes: ['CandidateInvited', 'AssessmentCandidateAdded', 'AssessmentCandidateRemoved', 'InvitationWithdrawn'],
  documentIds: (event) => ('email' in event.data && 'assessmentId' in event.data ? [key(event.data.assessmentId, event.data.email)] : []),
  evolve(document, event) {
    switch (event.type) {
      case 'CandidateInvited': {
        const { workspaceId, assessmentId, email, mode, invitationId, invitationToken, invitedAt } = event.data;
        return { id: key(assessmentId, email), workspaceId, assessmentId, email, mode, invitationId, invitationToken, invitedAt };
      }
      case 'AssessmentCandidateAdded':
      case 'AssessmentCandidateRemoved':
        return null;
      case 'InvitationWithdrawn':
        return document?.invitationId === event.data.invitationId ? null : document;
      default:
        return document;
    }
  },
};
