import type { AssessmentEvent } from '../events.js';
import { ASSESSMENT_ID, NOW, WORKSPACE_ID, assessmentCreated } from '../testing/decider-fixtures.js';
import { evolveAssessment, initialAssessmentState, type AssessmentState } from './assessment.state.js';

const ERASED = '[erased]';
const invited = (email: string, invitationId: string): AssessmentEvent => ({
  type: 'CandidateInvited',
  data: {
    assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, assessmentName: 'Role', deadline: null, invitationId, invitationToken: `token-${invitationId}`,
    mode: 'sandbox', email, firstName: 'A', surname: 'B', invitedAt: NOW,
  },
});
const added = (email: string, candidateId: string, invitationId: string): AssessmentEvent => ({
  type: 'AssessmentCandidateAdded', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId, email, mode: 'sandbox', invitationId, addedAt: NOW },
});
const removed = (email: string, candidateId: string, invitationId: string): AssessmentEvent => ({
  type: 'AssessmentCandidateRemoved', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId, email, mode: 'sandbox', invitationId, removedAt: NOW },
});
const withdrawn = (email: string, invitationId: string): AssessmentEvent => ({
  type: 'InvitationWithdrawn', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, email, invitationId, withdrawnAt: NOW },
});
const fold = (events: AssessmentEvent[], from: AssessmentState = initialAssessmentState()): AssessmentState => events.reduce(evolveAssessment, from);
const addresses = (state: AssessmentState) =>
  state.status === 'none' ? null : { invitations: [...state.invitations.keys()].sort(), candidates: [...state.candidates.keys()].sort() };

/** A deleted person's address reads as erased once their key is destroyed (docs/audit.md): folds must not depend on it. */
describe('assessment state across an erasure', () => {
  it('a state folded while the address was readable still loses the person to an erased removal', () => {
    const before = fold([assessmentCreated(), invited('ada@example.com', 'inv1'), added('ada@example.com', 'cand1', 'inv1'), invited('bob@example.com', 'inv2')]);
    const after = fold([removed(ERASED, 'cand1', 'inv1'), withdrawn(ERASED, 'inv2')], before);
    expect(addresses(after)).toEqual({ invitations: [], candidates: [] });
  });

  it('a state folded before the erasure and brought up to date after it loses the invitation too, found by its id', () => {
    // Cached while the invitation was readable; the candidate's joining and removal read once their key was destroyed.
    const before = fold([assessmentCreated(), invited('ada@example.com', 'inv1')]);
    const after = fold([added(ERASED, 'cand1', 'inv1'), removed(ERASED, 'cand1', 'inv1')], before);
    expect(addresses(after)).toEqual({ invitations: [], candidates: [] });
  });

  it('a refold of several erased people ends with none of them', () => {
    const state = fold([
      assessmentCreated(), invited(ERASED, 'inv1'), added(ERASED, 'cand1', 'inv1'), invited(ERASED, 'inv2'), invited('kept@example.com', 'inv3'),
      removed(ERASED, 'cand1', 'inv1'), withdrawn(ERASED, 'inv2'),
    ]);
    expect(addresses(state)).toEqual({ invitations: ['kept@example.com'], candidates: [] });
  });
});
