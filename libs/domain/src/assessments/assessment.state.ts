import type { AssessmentEvent } from '../events.js';
import { ownedRecord, passRecord, writableRecord } from '../shared/owned-record.js';
import type { Mode, TestRef } from '../shared/types.js';

export interface InvitationState {
  invitationId: string;
  token: string;
  mode: Mode;
  email: string;
  /**
   * The invited person's names as the invitation recorded them (the event's data itself, not a
   * copy): only registration through the invitation reads them, so a fold does not.
   */
  person: { readonly firstName: string; readonly surname: string };
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
      /** The address of each pending invitation, by token (registration finds the invitation by its link). */
      invitationTokens: Record<string, string>;
    };

export type ExistingAssessment = Exclude<AssessmentState, { status: 'none' }>;

export const initialAssessmentState = (): AssessmentState => ({ status: 'none' });

/*
 * Every event copies the state's scalar fields into a new object literal (object spread with extra
 * properties costs ~1 µs per property here) and changes its records in place through ownership
 * (shared/owned-record.ts), so folding n events costs O(n), not O(n²).
 */
const successor = (state: ExistingAssessment, status = state.status, tests = state.tests): ExistingAssessment => {
  const next: ExistingAssessment = {
    status, id: state.id, workspaceId: state.workspaceId, name: state.name, tests, deadline: state.deadline, inviteToken: state.inviteToken,
    invitations: state.invitations, candidates: state.candidates, invitationTokens: state.invitationTokens,
  };
  passRecord(state, state.invitations, next);
  passRecord(state, state.candidates, next);
  passRecord(state, state.invitationTokens, next);
  return next;
};

const dropInvitation = (next: ExistingAssessment, email: string): void => {
  const invitation = next.invitations[email];
  if (invitation === undefined) return;
  next.invitations = writableRecord(next, next.invitations);
  delete next.invitations[email];
  if (next.invitationTokens[invitation.token] === email) {
    next.invitationTokens = writableRecord(next, next.invitationTokens);
    delete next.invitationTokens[invitation.token];
  }
};

const created = (event: Extract<AssessmentEvent, { type: 'AssessmentCreated' }>): ExistingAssessment => {
  const { assessmentId, workspaceId, name, tests, deadline, inviteToken } = event.data;
  const state: ExistingAssessment = {
    status: 'active', id: assessmentId, workspaceId, name, tests, deadline, inviteToken, invitations: {}, candidates: {}, invitationTokens: {},
  };
  state.invitations = ownedRecord(state);
  state.candidates = ownedRecord(state);
  state.invitationTokens = ownedRecord(state);
  return state;
};

// Changing what this fold makes of an event? Bump assessmentSnapshots.version (assessment.snapshot.ts).
export const evolveAssessment = (state: AssessmentState, event: AssessmentEvent): AssessmentState => {
  if (event.type === 'AssessmentCreated') return created(event);
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'CandidateInvited': {
      const { invitationId, invitationToken, mode, email } = event.data;
      const next = successor(state);
      dropInvitation(next, email);
      next.invitations = writableRecord(next, next.invitations);
      next.invitations[email] = { invitationId, token: invitationToken, mode, email, person: event.data };
      next.invitationTokens = writableRecord(next, next.invitationTokens);
      next.invitationTokens[invitationToken] = email;
      return next;
    }
    case 'AssessmentTestAdded':
      return successor(state, state.status, [...state.tests, event.data.test]);
    case 'AssessmentClosed':
      return successor(state, 'archived');
    case 'AssessmentCandidateAdded': {
      const next = successor(state);
      next.candidates = writableRecord(next, next.candidates);
      next.candidates[event.data.email] = { candidateId: event.data.candidateId, mode: event.data.mode };
      return next;
    }
    // Removals find their entries by id, not by the event's address: once a deleted person's key is
    // destroyed their address reads as erased (docs/audit.md), and a state folded before that must
    // still lose them. A state folded partly before and partly after (a cache brought up to date)
    // holds the candidate under "[erased]" and their invitation under the clear address: each is
    // found by its own id (it lost only the candidate once, and answered the dead invitation's link
    // to the next invitation of the address).
    case 'AssessmentCandidateRemoved': {
      const { candidateId, invitationId, email } = event.data;
      const address = keyWhere(state.candidates, (candidate) => candidate.candidateId === candidateId) ?? email;
      const invited = (invitationId === null ? undefined : keyWhere(state.invitations, (invitation) => invitation.invitationId === invitationId)) ?? address;
      const next = successor(state);
      if (Object.hasOwn(next.candidates, address)) {
        next.candidates = writableRecord(next, next.candidates);
        delete next.candidates[address];
      }
      dropInvitation(next, invited);
      return next;
    }
    case 'InvitationWithdrawn': {
      const address = keyWhere(state.invitations, (invitation) => invitation.invitationId === event.data.invitationId);
      if (address === undefined) return state;
      const next = successor(state);
      dropInvitation(next, address);
      return next;
    }
    default:
      return state;
  }
};

// A scan, but only on removals (rare: a deleted test candidate), never on the invitation path.
const keyWhere = <Value>(record: Record<string, Value>, matches: (value: Value) => boolean): string | undefined =>
  Object.keys(record).find((key) => matches(record[key] as Value));

export const findInvitationByToken = (state: ExistingAssessment, token: string): InvitationState | undefined => {
  const email = state.invitationTokens[token];
  const invitation = email === undefined ? undefined : state.invitations[email];
  return invitation?.token === token ? invitation : undefined;
};
