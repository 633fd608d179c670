import { Map as ImmutableMap } from 'immutable';
import type { Mode } from '../shared/types.js';
import type { StateSnapshots } from '../shared/snapshots.js';
import type { AssessmentCandidateState, AssessmentState, ExistingAssessment, InvitationState } from './assessment.state.js';

/** [address, invitationId, token, mode, firstName, surname] */
type EncodedInvitation = [string, string, string, Mode, string, string];

/** The state's own fields as they are, its tables as lists of entries. */
type EncodedAssessment = Pick<ExistingAssessment, 'status' | 'id' | 'workspaceId' | 'name' | 'tests' | 'deadline' | 'inviteToken'> & {
  invitations: EncodedInvitation[];
  /** [address, candidateId, mode] */
  candidates: [string, string, Mode][];
  /** [token, address] */
  invitationTokens: [string, string][];
};

const isExisting = (state: AssessmentState): state is ExistingAssessment => state.status !== 'none';

/**
 * Snapshots of the assessment fold. The capture keeps the state itself (a value); the names are read
 * when the JSON value is made, after the answer: opening sealed names costs ~50 ms for 3,000
 * invitations folded from the log. The entries' order in the lists carries no meaning.
 */
export const assessmentSnapshots: StateSnapshots<AssessmentState> = {
  name: 'assessment',
  // Bump when evolveAssessment, AssessmentState or this codec changes what a state holds.
  version: 2,
  scopeOf: (state) => (isExisting(state) ? state.workspaceId : null),
  capture: (state) => {
    if (!isExisting(state)) return null;
    return (): EncodedAssessment => {
      const { status, id, workspaceId, name, tests, deadline, inviteToken } = state;
      const invitations: EncodedInvitation[] = [];
      for (const [address, invitation] of state.invitations) {
        invitations.push([address, invitation.invitationId, invitation.token, invitation.mode, invitation.person.firstName, invitation.person.surname]);
      }
      const candidates: [string, string, Mode][] = [];
      for (const [address, candidate] of state.candidates) candidates.push([address, candidate.candidateId, candidate.mode]);
      return { status, id, workspaceId, name, tests, deadline, inviteToken, invitations, candidates, invitationTokens: [...state.invitationTokens] };
    };
  },
  decode: (value): AssessmentState => {
    const encoded = value as EncodedAssessment;
    if (encoded === null || typeof encoded !== 'object' || !Array.isArray(encoded.invitations) || !Array.isArray(encoded.candidates)
      || !Array.isArray(encoded.invitationTokens) || (encoded.status !== 'active' && encoded.status !== 'archived')) {
      throw new Error('not an assessment snapshot');
    }
    return {
      status: encoded.status, id: encoded.id, workspaceId: encoded.workspaceId, name: encoded.name, tests: encoded.tests, deadline: encoded.deadline,
      inviteToken: encoded.inviteToken,
      invitations: ImmutableMap(encoded.invitations.map(([address, invitationId, token, mode, firstName, surname]): [string, InvitationState] =>
        [address, { invitationId, token, mode, email: address, person: { firstName, surname } }])),
      candidates: ImmutableMap(encoded.candidates.map(([address, candidateId, mode]): [string, AssessmentCandidateState] => [address, { candidateId, mode }])),
      invitationTokens: ImmutableMap(encoded.invitationTokens),
    };
  },
};
