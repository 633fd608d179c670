import { Map as ImmutableMap } from 'immutable';
import type { AssessmentEvent } from '../events.js';
import type { Mode, TestRef } from '../shared/types.js';

export interface InvitationState {
  readonly invitationId: string;
  readonly token: string;
  readonly mode: Mode;
  readonly email: string;
  /** The invited person's names: the event's data itself, not a copy (only registration reads them). */
  readonly person: { readonly firstName: string; readonly surname: string };
}

export interface AssessmentCandidateState {
  readonly candidateId: string;
  readonly mode: Mode;
}

/**
 * A value: evolving it never changes it, so readers (a cache, a decision, a snapshot) may share it.
 * Its tables are persistent maps (immutable's Map), keeping a fold of n events at O(n log n), not
 * the O(n²) of copying a record per event. Their iteration order is not insertion order: nothing may depend on it.
 */
export type AssessmentState =
  | { readonly status: 'none' }
  | {
      readonly status: 'active' | 'archived';
      readonly id: string;
      readonly workspaceId: string;
      readonly name: string;
      readonly tests: TestRef[];
      readonly deadline: string | null;
      readonly inviteToken: string;
      /** Pending or accepted invitations, by address: one per address whatever the mode. */
      readonly invitations: ImmutableMap<string, InvitationState>;
      /** Registered candidates, by address. */
      readonly candidates: ImmutableMap<string, AssessmentCandidateState>;
      /** The address of each pending invitation, by token (registration finds the invitation by its link). */
      readonly invitationTokens: ImmutableMap<string, string>;
    };

export type ExistingAssessment = Exclude<AssessmentState, { status: 'none' }>;

type Tables = Pick<ExistingAssessment, 'invitations' | 'candidates' | 'invitationTokens'>;

export const initialAssessmentState = (): AssessmentState => ({ status: 'none' });

// An object literal, not a spread: spreading a state with extra properties costs about 1 µs per
// property, which is most of a CandidateInvited's cost in a long fold.
const successor = (state: ExistingAssessment, tables: Tables, status = state.status, tests = state.tests): ExistingAssessment => ({
  status, id: state.id, workspaceId: state.workspaceId, name: state.name, tests, deadline: state.deadline, inviteToken: state.inviteToken,
  invitations: tables.invitations, candidates: tables.candidates, invitationTokens: tables.invitationTokens,
});

/** The tables without the invitation held under `address`, and without its token when the token still leads there. */
const withoutInvitation = (tables: Tables, address: string): Tables => {
  const invitation = tables.invitations.get(address);
  if (invitation === undefined) return tables;
  const { token } = invitation;
  return {
    invitations: tables.invitations.delete(address),
    candidates: tables.candidates,
    invitationTokens: tables.invitationTokens.get(token) === address ? tables.invitationTokens.delete(token) : tables.invitationTokens,
  };
};

const created = (event: Extract<AssessmentEvent, { type: 'AssessmentCreated' }>): ExistingAssessment => {
  const { assessmentId, workspaceId, name, tests, deadline, inviteToken } = event.data;
  return {
    status: 'active', id: assessmentId, workspaceId, name, tests, deadline, inviteToken,
    invitations: ImmutableMap(), candidates: ImmutableMap(), invitationTokens: ImmutableMap(),
  };
};

// Changing what this fold makes of an event? Bump assessmentSnapshots.version (assessment.snapshot.ts).
export const evolveAssessment = (state: AssessmentState, event: AssessmentEvent): AssessmentState => {
  if (event.type === 'AssessmentCreated') return created(event);
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'CandidateInvited': {
      const { invitationId, invitationToken, mode, email } = event.data;
      const { invitations, candidates, invitationTokens } = withoutInvitation(state, email);
      return successor(state, {
        invitations: invitations.set(email, { invitationId, token: invitationToken, mode, email, person: event.data }),
        candidates,
        invitationTokens: invitationTokens.set(invitationToken, email),
      });
    }
    case 'AssessmentTestAdded':
      return successor(state, state, state.status, [...state.tests, event.data.test]);
    case 'AssessmentClosed':
      return successor(state, state, 'archived');
    case 'AssessmentCandidateAdded': {
      const { email, candidateId, mode } = event.data;
      return successor(state, { invitations: state.invitations, candidates: state.candidates.set(email, { candidateId, mode }), invitationTokens: state.invitationTokens });
    }
    // Removals find their entries by id, not by the event's address: once a deleted person's key is
    // destroyed their address reads as erased (docs/audit.md), and a state folded before or partly
    // before that (a cache brought up to date: candidate under "[erased]", invitation under the clear
    // address) must still lose each. findKey scans the table: only the rare removals do.
    case 'AssessmentCandidateRemoved': {
      const { candidateId, invitationId, email } = event.data;
      const address = state.candidates.findKey((candidate) => candidate.candidateId === candidateId) ?? email;
      const invited = (invitationId === null ? undefined : state.invitations.findKey((invitation) => invitation.invitationId === invitationId)) ?? address;
      const tables = withoutInvitation(state, invited);
      return successor(state, { invitations: tables.invitations, candidates: tables.candidates.delete(address), invitationTokens: tables.invitationTokens });
    }
    case 'InvitationWithdrawn': {
      const address = state.invitations.findKey((invitation) => invitation.invitationId === event.data.invitationId);
      return address === undefined ? state : successor(state, withoutInvitation(state, address));
    }
    default:
      return state;
  }
};

/**
 * The fold of a run of events, as evolving them one at a time gives it (assessment-fold.unit.spec.ts),
 * on tables made transient for the run: mutable maps write in place where persistent ones copy a
 * path per change (most of a long catch-up's cost). The state passed in is not changed (`asMutable`
 * copies on write); the tables are frozen (`asImmutable`) before the state is returned.
 */
export const foldAssessment = (state: AssessmentState, events: readonly AssessmentEvent[]): AssessmentState => {
  let current = state;
  let transient: Tables | null = null;
  for (const event of events) {
    current = evolveAssessment(current, event);
    if (current.status === 'none') continue;
    // A table of another identity is a new persistent one (AssessmentCreated): it is made transient too.
    if (transient === null || current.invitations !== transient.invitations || current.candidates !== transient.candidates
      || current.invitationTokens !== transient.invitationTokens) {
      transient = { invitations: current.invitations.asMutable(), candidates: current.candidates.asMutable(), invitationTokens: current.invitationTokens.asMutable() };
      current = successor(current, transient);
    }
  }
  if (transient === null || current.status === 'none') return current;
  return successor(current, {
    invitations: current.invitations.asImmutable(), candidates: current.candidates.asImmutable(), invitationTokens: current.invitationTokens.asImmutable(),
  });
};

export const findInvitationByToken = (state: ExistingAssessment, token: string): InvitationState | undefined => {
  const email = state.invitationTokens.get(token);
  const invitation = email === undefined ? undefined : state.invitations.get(email);
  return invitation?.token === token ? invitation : undefined;
};
