import type { AssessmentEvent } from '../events.js';
import { ASSESSMENT_ID, WORKSPACE_ID, assessmentCreated, at, candidateAdded, candidateInvited, libraryTest } from '../testing/decider-fixtures.js';
import { assessmentSnapshots } from './assessment.snapshot.js';
import { type AssessmentState, evolveAssessment, initialAssessmentState } from './assessment.state.js';

const removed = (email: string, candidateId: string): AssessmentEvent => ({
  type: 'AssessmentCandidateRemoved',
  data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId, email, mode: 'sandbox', invitationId: null, removedAt: at(-1_000) },
});
const withdrawn = (email: string, n: number): AssessmentEvent => ({
  type: 'InvitationWithdrawn',
  data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, invitationId: `inv-${n}`, email, withdrawnAt: at(-1_000) },
});

/** Every kind of event the fold knows, an address invited twice, one removed, one withdrawn, the assessment closed. */
const history: AssessmentEvent[] = [
  assessmentCreated(),
  ...Array.from({ length: 6 }, (_, n) => candidateInvited(`p${n}@example.com`, n % 2 === 0 ? 'live' : 'sandbox', n, { firstName: `First ${n}`, surname: `Last ${n}` })),
  { type: 'AssessmentTestAdded', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, test: libraryTest('verbal-reasoning'), addedAt: at(-2_000) } },
  candidateAdded('p1@example.com', 'sandbox', 'cand-1', 'inv-1'),
  candidateAdded('walk-in@example.com', 'live', 'cand-9'),
  candidateInvited('p2@example.com', 'live', 20, { firstName: 'Again', surname: 'Two' }),
  removed('p1@example.com', 'cand-1'),
  withdrawn('p3@example.com', 3),
  candidateInvited('p6@example.com', 'sandbox', 6),
  { type: 'AssessmentClosed', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, closedAt: at(-500) } },
];

/** The snapshot's JSON value of a state, made at once, as stored. */
const stored = (state: AssessmentState): unknown => JSON.parse(JSON.stringify(assessmentSnapshots.capture(state)?.() ?? null));

const fold = (events: readonly AssessmentEvent[], from: AssessmentState = initialAssessmentState()): AssessmentState => events.reduce(evolveAssessment, from);

/**
 * The state as a reader sees it: its fields, and each table's entries sorted by key (a table's
 * iteration order carries no meaning). An invitation's `person` is the event's data in a fold;
 * readers read only its names (InvitationState).
 */
const seen = (state: AssessmentState): unknown => {
  if (state.status === 'none') return state;
  const { invitations, candidates, invitationTokens, ...fields } = state;
  const entries = <Value>(table: Iterable<[string, Value]>, view: (value: Value) => unknown): [string, unknown][] =>
    [...table].map(([key, value]): [string, unknown] => [key, view(value)]).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return {
    ...fields,
    invitations: entries(invitations, ({ invitationId, token, mode, email, person }) => ({ invitationId, token, mode, email, firstName: person.firstName, surname: person.surname })),
    candidates: entries(candidates, ({ candidateId, mode }) => ({ candidateId, mode })),
    invitationTokens: entries(invitationTokens, (address) => address),
  };
};

describe('assessment snapshots', () => {
  it('decoding a snapshot taken after any event, then folding the rest, gives the full fold', () => {
    const full = seen(fold(history));
    for (let taken = 1; taken <= history.length; taken += 1) {
      expect(seen(fold(history.slice(taken), assessmentSnapshots.decode(stored(fold(history.slice(0, taken))))))).toEqual(full);
    }
  });

  it('a decoded state is a value: evolving it changes nothing a reader holds', () => {
    const decoded = assessmentSnapshots.decode(stored(fold(history.slice(0, 7))));
    const before = seen(decoded);
    const next = fold(history.slice(7), decoded);
    const other = fold(history.slice(9), decoded);
    expect(seen(decoded)).toEqual(before);
    expect(seen(next)).toEqual(seen(fold(history)));
    expect(seen(other)).toEqual(seen(fold([...history.slice(0, 7), ...history.slice(9)])));
  });

  it('decodes a value stored in the version-2 format, entry for entry, and encodes a state to the same bytes', () => {
    const value = {
      status: 'active', id: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, name: 'Backend engineer', tests: [libraryTest('numerical-reasoning')], deadline: null,
      inviteToken: 'invite-token-1', invitations: [['p0@example.com', 'inv-0', 'tok-0', 'live', 'First 0', 'Last 0']],
      candidates: [['walk-in@example.com', 'cand-9', 'live']], invitationTokens: [['tok-0', 'p0@example.com']],
    };
    const state = assessmentSnapshots.decode(JSON.parse(JSON.stringify(value)));
    expect(seen(state)).toEqual(seen(fold([
      assessmentCreated({ tests: [libraryTest('numerical-reasoning')] }),
      candidateInvited('p0@example.com', 'live', 0, { firstName: 'First 0', surname: 'Last 0' }),
      candidateAdded('walk-in@example.com', 'live', 'cand-9'),
    ])));
    expect(JSON.stringify(assessmentSnapshots.capture(state)?.())).toBe(JSON.stringify(value));
  });

  it('a capture reads no name and is what the state held then, whatever the state becomes before its value is made', () => {
    let namesRead = 0;
    const lazy = (event: AssessmentEvent): AssessmentEvent => {
      if (event.type !== 'CandidateInvited') return event;
      const { firstName, surname, ...rest } = event.data;
      const data = { ...rest } as typeof event.data;
      // As the personal-data layer hands a fold its events: names opened when first read.
      Object.defineProperty(data, 'firstName', { enumerable: true, get: () => { namesRead += 1; return firstName; } });
      Object.defineProperty(data, 'surname', { enumerable: true, get: () => { namesRead += 1; return surname; } });
      return { ...event, data };
    };
    const state = fold(history.slice(0, 7).map(lazy));
    const expected = stored(fold(history.slice(0, 7)));
    namesRead = 0;
    const make = assessmentSnapshots.capture(state);
    expect(namesRead).toBe(0);
    // The state evolves afterwards: the capture still makes what the state held when it was taken.
    const later = fold(history.slice(7), state);
    expect(seen(later)).toEqual(seen(fold(history)));
    namesRead = 0;
    const made = JSON.parse(JSON.stringify(make?.())) as { invitations: unknown[] };
    expect(made).toEqual(expected);
    // Making the value opens each captured invitation's two names, once.
    expect(namesRead).toBe(2 * made.invitations.length);
  });

  it('keeps nothing of a stream with no assessment, and refuses what it cannot read', () => {
    expect(assessmentSnapshots.capture(initialAssessmentState())).toBeNull();
    expect(assessmentSnapshots.scopeOf(initialAssessmentState())).toBeNull();
    expect(assessmentSnapshots.scopeOf(fold(history))).toBe(WORKSPACE_ID);
    for (const value of [null, 42, {}, { status: 'none', invitations: [], candidates: [], invitationTokens: [] }]) {
      expect(() => assessmentSnapshots.decode(value)).toThrow('not an assessment snapshot');
    }
  });
});
