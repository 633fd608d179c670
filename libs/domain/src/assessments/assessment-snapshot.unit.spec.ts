import type { AssessmentEvent } from '../events.js';
import { shareState } from '../shared/owned-record.js';
import { ASSESSMENT_ID, WORKSPACE_ID, assessmentCreated, at, candidateAdded, candidateInvited, libraryTest } from '../shared/testing.js';
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
 * The state as a reader sees it, record order included (what Object.keys gives). An invitation's
 * `person` is the event's data in a fold; readers read only its names (InvitationState).
 */
const seen = (state: AssessmentState): unknown => {
  const plain = (value: unknown, key = ''): unknown => {
    if (key === 'person') {
      const { firstName, surname } = value as { firstName: string; surname: string };
      return { firstName, surname };
    }
    if (Array.isArray(value)) return value.map((item) => plain(item));
    if (value === null || typeof value !== 'object') return value;
    return Object.entries(value).map(([field, item]) => [field, plain(item, field)]);
  };
  return plain(state);
};

describe('assessment snapshots', () => {
  it('decoding a snapshot taken after any event, then folding the rest, gives the full fold', () => {
    const full = seen(fold(history));
    for (let taken = 1; taken <= history.length; taken += 1) {
      expect(seen(fold(history.slice(taken), assessmentSnapshots.decode(stored(fold(history.slice(0, taken))))))).toEqual(full);
    }
  });

  it('a decoded state evolves in place, and a shared one is never changed by evolving it', () => {
    const decoded = shareState(assessmentSnapshots.decode(stored(fold(history.slice(0, 7)))));
    const before = seen(decoded);
    const next = fold(history.slice(7), decoded);
    expect(seen(decoded)).toEqual(before);
    expect(seen(next)).toEqual(seen(fold(history)));
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
    // The state's own records changed in place afterwards (the state owns them: no copy).
    const later = fold(history.slice(7), state);
    expect(seen(later)).toEqual(seen(fold(history)));
    expect(JSON.parse(JSON.stringify(make?.()))).toEqual(expected);
    expect(namesRead).toBeGreaterThan(0);
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
