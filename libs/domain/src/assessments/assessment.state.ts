import type { AssessmentEvent } from '../events.js';
import type { Mode, TestRef } from '../shared/types.js';

export interface InvitationState {
  invitationId: string;
  token: string;
  mode: Mode;
  email: string;
  firstName: string;
  surname: string;
}

export type AssessmentState =
  | { status: 'none' }
  | {
      status: 'active' | 'archived';
      id: string;
      workspaceId: string;
      name: string;
      tests: TestRef[];
      deadline: string | null;
      inviteToken: string;
      /** Pending or accepted invitations, by address: one per address whatever the mode. */
      invitations: Record<string, InvitationState>;
      /** Registered candidates, by address. */
      candidates: Record<string, { candidateId: string; mode: Mode }>;
    };

export type ExistingAssessment = Exclude<AssessmentState, { status: 'none' }>;

export const initialAssessmentState = (): AssessmentState => ({ status: 'none' });

export const evolveAssessment = (state: AssessmentState, event: AssessmentEvent): AssessmentState => {
  if (event.type === 'AssessmentCreated') {
    const { assessmentId, workspaceId, name, tests, deadline, inviteToken } = event.data;
    return { status: 'active', id: assessmentId, workspaceId, name, tests, deadline, inviteToken, invitations: {}, candidates: {} };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'CandidateInvited': {
      const { invitationId, invitationToken, mode, email, firstName, surname } = event.data;
      return { ...state, invitations: { ...state.invitations, [email]: { invitationId, token: invitationToken, mode, email, firstName, surname } } };
    }
    case 'AssessmentTestAdded':
      return { ...state, tests: [...state.tests, event.data.test] };
    case 'AssessmentClosed':
      return { ...state, status: 'archived' };
    case 'AssessmentCandidateAdded':
      return { ...state, candidates: { ...state.candidates, [event.data.email]: { candidateId: event.data.candidateId, mode: event.data.mode } } };
    case 'AssessmentCandidateRemoved': {
      const { [event.data.email]: _candidate, ...candidates } = state.candidates;
      const { [event.data.email]: _invitation, ...invitations } = state.invitations;
      return { ...state, candidates, invitations };
    }
    case 'InvitationWithdrawn': {
      if (state.invitations[event.data.email]?.invitationId !== event.data.invitationId) return state;
      const { [event.data.email]: _withdrawn, ...invitations } = state.invitations;
      return { ...state, invitations };
    }
    default:
      return state;
  }
};

export const findInvitationByToken = (state: ExistingAssessment, token: string): InvitationState | undefined =>
  Object.values(state.invitations).find((invitation) => invitation.token === token);
