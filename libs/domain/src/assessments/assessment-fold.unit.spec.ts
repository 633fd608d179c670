import type { AssessmentEvent } from '../events.js';
import { ASSESSMENT_ID, WORKSPACE_ID, assessmentCreated, at, candidateAdded } from '../testing/decider-fixtures.js';
import {
  type AssessmentState, type ExistingAssessment, evolveAssessment, findInvitationByToken, foldAssessment, initialAssessmentState,
} from './assessment.state.js';

const invited = (index: number, email = `person-${index}@example.com`): AssessmentEvent => ({
  type: 'CandidateInvited',
  data: {
    assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, assessmentName: 'Backend engineer', deadline: null, invitationId: `inv-${index}`,
    invitationToken: `token-${index}`, mode: 'live', email, firstName: 'Person', surname: `Number ${index}`, invitedAt: at(-60_000),
  },
});
const withdrawn = (index: number): AssessmentEvent => ({
  type: 'InvitationWithdrawn',
  data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, invitationId: `inv-${index}`, email: `person-${index}@example.com`, withdrawnAt: at(-1_000) },
});

/** The invited addresses, sorted: a table's iteration order carries no meaning. */
const addresses = (state: ExistingAssessment): string[] => [...state.invitations.keys()].sort();

const fold = (events: AssessmentEvent[], from: AssessmentState = initialAssessmentState()): ExistingAssessment => {
  const state = events.reduce(evolveAssessment, from);
  if (state.status === 'none') throw new Error('no assessment');
  return state;
};

describe('assessment fold (a state is a value)', () => {
  it('folds many invitations and finds each by address and by token', () => {
    const state = fold([assessmentCreated(), ...Array.from({ length: 2_000 }, (_, index) => invited(index))]);
    expect(state.invitations.size).toBe(2_000);
    expect(state.invitationTokens.size).toBe(2_000);
    expect(state.invitations.get('person-1999@example.com')?.invitationId).toBe('inv-1999');
    expect(findInvitationByToken(state, 'token-1234')?.email).toBe('person-1234@example.com');
    expect(findInvitationByToken(state, 'token-none')).toBeUndefined();
  });

  it('keeps an invitation\'s names as the event recorded them, without reading them', () => {
    const event = invited(7);
    let namesRead = 0;
    // Names that count their reads, as the personal-data layer opens them only when read.
    const data = { ...event.data } as Record<string, unknown>;
    for (const field of ['firstName', 'surname']) {
      const value = data[field];
      Object.defineProperty(data, field, { enumerable: true, get: () => { namesRead += 1; return value; } });
    }
    const state = fold([assessmentCreated(), { ...event, data } as AssessmentEvent]);
    expect(namesRead).toBe(0);
    expect(state.invitations.get('person-7@example.com')?.person).toMatchObject({ firstName: 'Person', surname: 'Number 7' });
  });

  it('a state never changes when it is evolved again, by any number of successors', () => {
    const held = fold([assessmentCreated(), invited(1)]);
    const left = fold([invited(2), invited(3)], held);
    const right = fold([invited(4)], held);
    const again = fold([invited(5, 'person-1@example.com')], held);
    expect(addresses(held)).toEqual(['person-1@example.com']);
    expect(addresses(left)).toEqual(['person-1@example.com', 'person-2@example.com', 'person-3@example.com']);
    expect(addresses(right)).toEqual(['person-1@example.com', 'person-4@example.com']);
    expect(findInvitationByToken(held, 'token-1')?.invitationId).toBe('inv-1');
    expect(findInvitationByToken(held, 'token-2')).toBeUndefined();
    expect(findInvitationByToken(held, 'token-5')).toBeUndefined();
    expect(findInvitationByToken(again, 'token-1')).toBeUndefined();
    expect(fold([withdrawn(1)], held).invitations.size).toBe(0);
    expect(held.invitations.get('person-1@example.com')?.invitationId).toBe('inv-1');
  });

  it('a withdrawn invitation is gone by address and by token; a new one for the address takes its place', () => {
    const state = fold([assessmentCreated(), invited(1), withdrawn(1), invited(7, 'person-1@example.com')]);
    expect(state.invitations.get('person-1@example.com')?.invitationId).toBe('inv-7');
    expect(findInvitationByToken(state, 'token-1')).toBeUndefined();
    expect(findInvitationByToken(state, 'token-7')?.invitationId).toBe('inv-7');
  });

  it('a re-invitation of an address replaces the older token', () => {
    const state = fold([assessmentCreated(), invited(1), invited(2, 'person-1@example.com')]);
    expect(findInvitationByToken(state, 'token-1')).toBeUndefined();
    expect(findInvitationByToken(state, 'token-2')?.email).toBe('person-1@example.com');
  });

  it('folds a run of events at once (transient tables) to the state one at a time gives, and leaves the state it starts from as it was', () => {
    const tables = (state: AssessmentState) => (state.status === 'none' ? null : {
      invitations: state.invitations.toJS(), candidates: state.candidates.toJS(), invitationTokens: state.invitationTokens.toJS(), status: state.status,
    });
    const removed: AssessmentEvent = {
      type: 'AssessmentCandidateRemoved',
      data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId: 'cand-3', invitationId: 'inv-3', email: 'person-3@example.com', mode: 'live', removedAt: at(-500) },
    };
    const run: AssessmentEvent[] = [
      ...Array.from({ length: 300 }, (_, index) => invited(index)), withdrawn(5), candidateAdded('person-3@example.com', 'live', 'cand-3', 'inv-3'), removed,
      invited(900, 'person-5@example.com'), { type: 'AssessmentClosed', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, closedAt: at(-1) } },
    ];
    // From nothing (AssessmentCreated makes new tables inside the run), and from a held state.
    expect(tables(foldAssessment(initialAssessmentState(), [assessmentCreated(), ...run]))).toEqual(tables(fold([assessmentCreated(), ...run])));
    const held = fold([assessmentCreated(), invited(1000), invited(1001)]);
    const before = tables(held);
    const folded = foldAssessment(held, run);
    expect(tables(folded)).toEqual(tables(fold(run, held)));
    expect(tables(held)).toEqual(before);
    // The result is a value again: evolving it leaves it as it was.
    const next = evolveAssessment(folded, invited(2000));
    expect(folded.status !== 'none' && folded.invitations.has('person-2000@example.com')).toBe(false);
    expect(next.status !== 'none' && next.invitations.has('person-2000@example.com')).toBe(true);
    expect(foldAssessment(held, [])).toBe(held);
  });
});
