import type { Mode } from '#domain';
import { ordered, type Projection } from '../shared/projection.js';
import { servedInvitationJson } from './invitation-row.view.js';

export type InvitationStatus = 'pending' | 'registered';

/**
 * One invitation of an assessment, keyed by its invitation id: GET /v1/assessments/{id}/invitations.
 * Unlike the `invitations` read model (pending ones by address), it keeps the used ones, as `registered`.
 */
export interface InvitationRowDocument {
  id: string;
  workspaceId: string;
  assessmentId: string;
  mode: Mode;
  email: string;
  firstName: string;
  surname: string;
  status: InvitationStatus;
  invitedAt: string;
  /** The personal link's token while pending; null once used (the link is no longer served). */
  invitationToken: string | null;
  candidateId: string | null;
}

/*
 * Every event that ends or uses an invitation names it by id (`invitationId`), so a row is found
 * without the address: once a deleted person's key is destroyed their address reads `[erased]`
 * (docs/audit.md), and a rebuild must still drop them. A deletion withdraws each invitation of the
 * person (InvitationWithdrawn) or removes them with the one they joined through
 * (AssessmentCandidateRemoved, which names it: the concurrency tier checks it never is null then).
 */
export const assessmentInvitationsProjection: Projection<InvitationRowDocument> = {
  name: 'assessment-invitations',
  indexes: [
    ordered(['assessmentId', 'asc'], ['mode', 'asc'], ['invitedAt', 'desc'], ['id', 'desc']),
    ordered(['assessmentId', 'asc'], ['mode', 'asc'], ['status', 'asc'], ['invitedAt', 'desc'], ['id', 'desc']),
  ],
  eventTypes: ['CandidateInvited', 'AssessmentCandidateAdded', 'AssessmentCandidateRemoved', 'InvitationWithdrawn'],
  documentIds: (event) => ('invitationId' in event.data && event.data.invitationId !== null ? [event.data.invitationId] : []),
  served: servedInvitationJson,
  evolve(document, event) {
    switch (event.type) {
      case 'CandidateInvited': {
        const { invitationId, workspaceId, assessmentId, mode, email, firstName, surname, invitedAt, invitationToken } = event.data;
        return { id: invitationId, workspaceId, assessmentId, mode, email, firstName, surname, status: 'pending', invitedAt, invitationToken, candidateId: null };
      }
      case 'AssessmentCandidateAdded': {
        // Only a registration that names this invitation uses it (open sign-up accepts a pending live one so).
        if (document === null || document.status === 'registered') return document;
        const { id, workspaceId, assessmentId, mode, email, firstName, surname, invitedAt } = document;
        return { id, workspaceId, assessmentId, mode, email, firstName, surname, status: 'registered', invitedAt, invitationToken: null, candidateId: event.data.candidateId };
      }
      case 'AssessmentCandidateRemoved':
      case 'InvitationWithdrawn':
        return null;
      default:
        return document;
    }
  },
};
