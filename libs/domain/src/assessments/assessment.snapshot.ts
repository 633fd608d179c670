import type { Mode } from '../shared/types.js';
import { ownedRecord } from '../shared/owned-record.js';
import type { StateSnapshots } from '../shared/snapshots.js';
import type { AssessmentState, ExistingAssessment, InvitationState } from './assessment.state.js';

/** [address, invitationId, token, mode, firstName, surname] */
type EncodedInvitation = [string, string, string, Mode, string, string];

/** The state's own fields as they are, its records as lists of entries (in order). */
type EncodedAssessment = Pick<ExistingAssessment, 'status' | 'id' | 'workspaceId' | 'name' | 'tests' | 'deadline' | 'inviteToken'> & {
  invitations: EncodedInvitation[];
  /** [address, candidateId, mode] */
  candidates: [string, string, Mode][];
  /** [token, address] */
  invitationTokens: [string, string][];
};

const isExisting = (state: AssessmentState): state is ExistingAssessment => state.status !== 'none';

/**
 * Snapshots of the assessment fold (evolveAssessment). Records keep their order (insertion order is
 * what Object.keys gives a reader). The capture copies the records' entries as they stand (an
 * invitation's `person` is the event's data, which nothing changes); the names are read when the
 * value is made, after the answer: reading them opens each invitation's sealed names (two AES-GCM
 * operations each, ~50 ms for 3,000 invitations folded from the log).
 */
export const assessmentSnapshots: StateSnapshots<AssessmentState> = {
  name: 'assessment',
  // Bump when evolveAssessment, AssessmentState or this codec changes what a state holds.
  version: 2,
  scopeOf: (state) => (isExisting(state) ? state.workspaceId : null),
  capture: (state) => {
    if (!isExisting(state)) return null;
    const { status, id, workspaceId, name, tests, deadline, inviteToken } = state;
    const invitations = Object.keys(state.invitations).map((address) => [address, state.invitations[address] as InvitationState] as const);
    const candidates = Object.keys(state.candidates).map((address): [string, string, Mode] => {
      const candidate = state.candidates[address] as { candidateId: string; mode: Mode };
      return [address, candidate.candidateId, candidate.mode];
    });
    const invitationTokens = Object.keys(state.invitationTokens).map((token): [string, string] => [token, state.invitationTokens[token] as string]);
    return (): EncodedAssessment => ({
      status, id, workspaceId, name, tests, deadline, inviteToken,
      invitations: invitations.map(([address, invitation]): EncodedInvitation =>
        [address, invitation.invitationId, invitation.token, invitation.mode, invitation.person.firstName, invitation.person.surname]),
      candidates, invitationTokens,
    });
  },
  decode: (value): AssessmentState => {
    const encoded = value as EncodedAssessment;
    if (encoded === null || typeof encoded !== 'object' || !Array.isArray(encoded.invitations) || !Array.isArray(encoded.candidates)
      || !Array.isArray(encoded.invitationTokens) || (encoded.status !== 'active' && encoded.status !== 'archived')) {
      throw new Error('not an assessment snapshot');
    }
    const state: ExistingAssessment = {
      status: encoded.status, id: encoded.id, workspaceId: encoded.workspaceId, name: encoded.name, tests: encoded.tests, deadline: encoded.deadline,
      inviteToken: encoded.inviteToken, invitations: {}, candidates: {}, invitationTokens: {},
    };
    state.invitations = ownedRecord(state);
    state.candidates = ownedRecord(state);
    state.invitationTokens = ownedRecord(state);
    for (const [address, invitationId, token, mode, firstName, surname] of encoded.invitations) {
      state.invitations[address] = { invitationId, token, mode, email: address, person: { firstName, surname } };
    }
    for (const [address, candidateId, mode] of encoded.candidates) state.candidates[address] = { candidateId, mode };
    for (const [token, address] of encoded.invitationTokens) state.invitationTokens[token] = address;
    return state;
  },
};
