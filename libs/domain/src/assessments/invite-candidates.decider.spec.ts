import type { AssessmentEvent, WorkspaceEvent } from '../events.js';
import { fold } from '../shared/decider.js';
import type { Mode } from '../shared/types.js';
import {
  ASSESSMENT_ID, DAY_MS, NOW, TODAY, WORKSPACE_ID, type Refusal, assessmentCreated, at, attempt, candidateAdded, candidateInvited, existing, refused,
} from '../testing/decider-fixtures.js';
import { assessmentDecider } from './assessment.decider.js';
import {
  type InvitationOutcome, type InvitationReason, type InviteCandidatesCommand, MAX_CANDIDATES_PER_REQUEST, decideInvitations, invitationAddresses,
} from './invite-candidates.js';

const created = assessmentCreated();
const closed: AssessmentEvent = { type: 'AssessmentClosed', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, closedAt: at(-DAY_MS) } };

/** Given the assessment's events, when InviteCandidates: then outcomes and events, or a refusal. */
const invite = (history: AssessmentEvent[], candidates: unknown, options: Partial<InviteCandidatesCommand> = {}) => {
  const command: InviteCandidatesCommand = {
    type: 'InviteCandidates', mode: 'live', candidates, workspaceVerified: true, sandboxPlacesLeft: 25, knownCandidates: {},
    newInvitation: (index) => ({ invitationId: `inv-new-${index}`, invitationToken: `tok-new-${index}` }), metadata: { now: NOW }, ...options,
  };
  return attempt(() => decideInvitations(command, existing(fold(assessmentDecider, history))));
};

const entry = (
  email: string, status: InvitationOutcome['status'], reason: InvitationReason | null, extra: Partial<InvitationOutcome> = {},
): InvitationOutcome => ({ email, firstName: '', surname: '', status, reason, candidateId: null, invitationToken: null, ...extra });
const invited = (email: string, n: number, extra: Partial<InvitationOutcome> = {}) => entry(email, 'invited', null, { invitationToken: `tok-new-${n}`, ...extra });
const failed = (email: string, reason: InvitationReason, extra: Partial<InvitationOutcome> = {}) => entry(email, 'failed', reason, extra);

const invitedEvent = (email: string, n: number, mode: Mode = 'live', names = { firstName: '', surname: '' }): AssessmentEvent => ({
  type: 'CandidateInvited',
  data: {
    assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, assessmentName: 'Backend engineer', deadline: null,
    invitationId: `inv-new-${n}`, invitationToken: `tok-new-${n}`, mode, email, ...names, invitedAt: NOW,
  },
});

const placesUsed = (places: number): WorkspaceEvent =>
  ({ type: 'SandboxPlacesUsed', data: { workspaceId: WORKSPACE_ID, assessmentId: ASSESSMENT_ID, places, usedAt: NOW } });

const people = (count: number) => Array.from({ length: count }, (_, index) => ({ email: `person${index}@example.com` }));

const outcomesOf = (decision: ReturnType<typeof invite>): InvitationOutcome[] => ('value' in decision ? decision.value.outcomes : []);

describe('InviteCandidates, per entry', () => {
  it('invites a new address, trimmed and lower-cased, with the names as sent', () => {
    expect(invite([created], [{ email: '  Ann.Lee@Example.COM ', firstName: ' Ann ', surname: 'Lee' }])).toEqual({
      value: {
        outcomes: [invited('ann.lee@example.com', 0, { firstName: ' Ann ', surname: 'Lee' })],
        events: [invitedEvent('ann.lee@example.com', 0, 'live', { firstName: ' Ann ', surname: 'Lee' })],
        workspaceEvents: [],
      },
    });
  });

  it('invites a test candidate with a sandbox key', () => {
    expect(invite([created], [{ email: 'ann@example.com' }], { mode: 'sandbox' })).toEqual({
      value: { outcomes: [invited('ann@example.com', 0)], events: [invitedEvent('ann@example.com', 0, 'sandbox')], workspaceEvents: [placesUsed(1)] },
    });
  });

  it('shows absent names as ""', () => {
    expect(outcomesOf(invite([created], [{ email: 'ann@example.com' }]))).toEqual([invited('ann@example.com', 0)]);
  });

  it('answers already_invited with the existing link for a pending invitation', () => {
    const history = [created, candidateInvited('ann@example.com', 'live', 1)];
    expect(invite(history, [{ email: 'ANN@example.com', firstName: 'Ann' }])).toEqual({
      value: { outcomes: [entry('ann@example.com', 'already_invited', 'already_invited', { firstName: 'Ann', invitationToken: 'tok-1' })], events: [], workspaceEvents: [] },
    });
  });

  it.each([['live', 'sandbox'], ['sandbox', 'live']] as const)('answers already_invited for a pending %s invitation to a %s key', (invitedAs, mode) => {
    const history = [created, candidateInvited('ann@example.com', invitedAs, 1)];
    expect(invite(history, [{ email: 'ann@example.com' }], { mode })).toEqual({
      value: { outcomes: [entry('ann@example.com', 'already_invited', 'already_invited', { invitationToken: 'tok-1' })], events: [], workspaceEvents: [] },
    });
  });

  it.each(['live', 'sandbox'] as const)('answers already_candidate with the candidate id for a %s candidate on the assessment', (mode) => {
    const history = [created, candidateInvited('ann@example.com', mode, 1), candidateAdded('ann@example.com', mode, 'c-1', 'inv-1')];
    const knownCandidates = { 'ann@example.com': { candidateId: 'c-1', mode } };
    expect(invite(history, [{ email: 'ann@example.com' }], { mode, knownCandidates })).toEqual({
      value: { outcomes: [entry('ann@example.com', 'already_invited', 'already_candidate', { candidateId: 'c-1' })], events: [], workspaceEvents: [] },
    });
  });

  it('answers already_candidate for a candidate who signed up through the public link', () => {
    const history = [created, candidateAdded('ann@example.com', 'live', 'c-1')];
    expect(outcomesOf(invite(history, [{ email: 'ann@example.com' }], { knownCandidates: { 'ann@example.com': { candidateId: 'c-1', mode: 'live' } } })))
      .toEqual([entry('ann@example.com', 'already_invited', 'already_candidate', { candidateId: 'c-1' })]);
  });

  it('invites a candidate of the workspace who is not yet on this assessment', () => {
    const knownCandidates = { 'ann@example.com': { candidateId: 'c-1', mode: 'live' as const } };
    expect(outcomesOf(invite([created], [{ email: 'ann@example.com' }], { knownCandidates }))).toEqual([invited('ann@example.com', 0)]);
  });

  it('fails live_candidate when a sandbox key invites a live candidate of the workspace', () => {
    const knownCandidates = { 'ann@example.com': { candidateId: 'c-1', mode: 'live' as const } };
    expect(invite([created], [{ email: 'ann@example.com', firstName: 'Ann' }], { mode: 'sandbox', knownCandidates })).toEqual({
      value: { outcomes: [failed('ann@example.com', 'live_candidate', { firstName: 'Ann' })], events: [], workspaceEvents: [] },
    });
    const onAssessment = [created, candidateAdded('ann@example.com', 'live', 'c-1')];
    expect(outcomesOf(invite(onAssessment, [{ email: 'ann@example.com' }], { mode: 'sandbox', knownCandidates }))).toEqual([failed('ann@example.com', 'live_candidate')]);
  });

  it('fails sandbox_candidate when a live key invites a test candidate of the workspace', () => {
    const knownCandidates = { 'ann@example.com': { candidateId: 'c-1', mode: 'sandbox' as const } };
    expect(invite([created], [{ email: 'ann@example.com' }], { knownCandidates })).toEqual({
      value: { outcomes: [failed('ann@example.com', 'sandbox_candidate')], events: [], workspaceEvents: [] },
    });
    const onAssessment = [created, candidateAdded('ann@example.com', 'sandbox', 'c-1')];
    expect(outcomesOf(invite(onAssessment, [{ email: 'ann@example.com' }], { knownCandidates }))).toEqual([failed('ann@example.com', 'sandbox_candidate')]);
  });

  it.each([
    ['missing', {}, ''],
    ['empty', { email: '' }, ''],
    ['blank', { email: '   ' }, ''],
    ['null', { email: null }, ''],
    ['a number', { email: 42 }, ''],
    ['a list', { email: ['ann@example.com'] }, ''],
    ['without @', { email: 'Ann.example.com' }, 'ann.example.com'],
    ['with two @', { email: 'ann@lee@example.com' }, 'ann@lee@example.com'],
    ['without local part', { email: '@example.com' }, '@example.com'],
    ['without domain', { email: 'ann@' }, 'ann@'],
    ['with a domain without a dot', { email: 'ann@localhost' }, 'ann@localhost'],
    ['with an empty domain label', { email: 'ann@example..com' }, 'ann@example..com'],
    ['with inner white space', { email: 'ann lee@example.com' }, 'ann lee@example.com'],
    ['255 characters long', { email: `${'a'.repeat(243)}@example.com` }, `${'a'.repeat(243)}@example.com`],
  ])('fails invalid_email for an address %s, showing it as used', (_label, candidate, shown) => {
    expect(invite([created], [{ ...candidate, firstName: 'Ann' }])).toEqual({ value: { outcomes: [failed(shown, 'invalid_email', { firstName: 'Ann' })], events: [], workspaceEvents: [] } });
  });

  it('accepts an address of 254 characters', () => {
    const email = `${'a'.repeat(242)}@example.com`;
    expect(outcomesOf(invite([created], [{ email }]))).toEqual([invited(email, 0)]);
  });

  it.each([
    ['firstName null', { firstName: null }, { firstName: '' }],
    ['surname null', { surname: null }, { surname: '' }],
    ['firstName a number', { firstName: 7 }, { firstName: '' }],
    ['surname an object', { surname: { text: 'Lee' } }, { surname: '' }],
    ['firstName of 256 characters', { firstName: 'f'.repeat(256) }, { firstName: 'f'.repeat(256) }],
    ['surname of 256 characters', { surname: 's'.repeat(256) }, { surname: 's'.repeat(256) }],
  ])('fails invalid_name for %s, showing non-text names as ""', (_label, names, shown) => {
    expect(invite([created], [{ email: 'ann@example.com', ...names }])).toEqual({ value: { outcomes: [failed('ann@example.com', 'invalid_name', shown)], events: [], workspaceEvents: [] } });
  });

  it('accepts names of 255 characters and empty names', () => {
    const names = { firstName: 'f'.repeat(255), surname: '' };
    expect(outcomesOf(invite([created], [{ email: 'ann@example.com', ...names }]))).toEqual([invited('ann@example.com', 0, names)]);
  });

  it.each([[null], ['ann@example.com'], [42], [true], [['ann@example.com']]])('fails invalid_entry for the entry %j, showing "" fields', (bad) => {
    expect(invite([created], [bad])).toEqual({ value: { outcomes: [failed('', 'invalid_entry')], events: [], workspaceEvents: [] } });
  });

  it('judges each entry on its own and answers in the order sent', () => {
    const history = [created, candidateInvited('bob@example.com', 'live', 1)];
    const decision = invite(history, [{ email: 'ann@example.com' }, 'oops', { email: 'bob@example.com' }, { email: 'nope' }, { email: 'cy@example.com', surname: 'Cy' }]);
    expect(decision).toEqual({
      value: {
        outcomes: [
          invited('ann@example.com', 0),
          failed('', 'invalid_entry'),
          entry('bob@example.com', 'already_invited', 'already_invited', { invitationToken: 'tok-1' }),
          failed('nope', 'invalid_email'),
          invited('cy@example.com', 1, { surname: 'Cy' }),
        ],
        events: [invitedEvent('ann@example.com', 0), invitedEvent('cy@example.com', 1, 'live', { firstName: '', surname: 'Cy' })],
        workspaceEvents: [],
      },
    });
  });

  it('invites again an address whose test candidate was deleted', () => {
    const removed: AssessmentEvent = {
      type: 'AssessmentCandidateRemoved',
      data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId: 'c-1', email: 'ann@example.com', mode: 'sandbox', invitationId: 'inv-1', removedAt: at(-60_000) },
    };
    const history = [created, candidateInvited('ann@example.com', 'sandbox', 1), candidateAdded('ann@example.com', 'sandbox', 'c-1', 'inv-1'), removed];
    expect(outcomesOf(invite(history, [{ email: 'ann@example.com' }], { mode: 'sandbox' }))).toEqual([invited('ann@example.com', 0)]);
  });
});

describe('InviteCandidates, the same address twice in one request', () => {
  it('answers a later copy already_invited with the link of the first copy, which was invited', () => {
    const decision = invite([created], [{ email: 'ann@example.com', firstName: 'Ann' }, { email: ' ANN@example.com', firstName: 'Annie' }, { email: 'ann@example.com', surname: null }]);
    expect(decision).toEqual({
      value: {
        outcomes: [
          invited('ann@example.com', 0, { firstName: 'Ann' }),
          entry('ann@example.com', 'already_invited', 'already_invited', { firstName: 'Annie', invitationToken: 'tok-new-0' }),
          entry('ann@example.com', 'already_invited', 'already_invited', { invitationToken: 'tok-new-0' }),
        ],
        events: [invitedEvent('ann@example.com', 0, 'live', { firstName: 'Ann', surname: '' })],
        workspaceEvents: [],
      },
    });
  });

  it('gives a later copy the outcome of the first copy otherwise', () => {
    const history = [created, candidateInvited('bob@example.com', 'live', 1), candidateAdded('cy@example.com', 'live', 'c-9')];
    const knownCandidates = { 'cy@example.com': { candidateId: 'c-9', mode: 'live' as const }, 'dee@example.com': { candidateId: 'c-4', mode: 'sandbox' as const } };
    const decision = invite(history, [
      { email: 'bob@example.com' }, { email: 'cy@example.com' }, { email: 'dee@example.com' }, { email: 'eve@example.com', firstName: null },
      { email: 'bob@example.com', firstName: 'Bob' }, { email: 'cy@example.com' }, { email: 'dee@example.com' }, { email: 'eve@example.com', firstName: 'Eve' },
    ], { knownCandidates });
    expect(decision).toEqual({
      value: {
        outcomes: [
          entry('bob@example.com', 'already_invited', 'already_invited', { invitationToken: 'tok-1' }),
          entry('cy@example.com', 'already_invited', 'already_candidate', { candidateId: 'c-9' }),
          failed('dee@example.com', 'sandbox_candidate'),
          failed('eve@example.com', 'invalid_name'),
          entry('bob@example.com', 'already_invited', 'already_invited', { firstName: 'Bob', invitationToken: 'tok-1' }),
          entry('cy@example.com', 'already_invited', 'already_candidate', { candidateId: 'c-9' }),
          failed('dee@example.com', 'sandbox_candidate'),
          failed('eve@example.com', 'invalid_name', { firstName: 'Eve' }),
        ],
        events: [],
        workspaceEvents: [],
      },
    });
  });

  it('uses one sandbox place for an address sent twice', () => {
    const decision = invite([created], [{ email: 'ann@example.com' }, { email: 'Ann@Example.com' }], { mode: 'sandbox', sandboxPlacesLeft: 1 });
    expect(decision).toEqual({ value: { outcomes: [invited('ann@example.com', 0), entry('ann@example.com', 'already_invited', 'already_invited', { invitationToken: 'tok-new-0' })],
      events: [invitedEvent('ann@example.com', 0, 'sandbox')], workspaceEvents: [placesUsed(1)] } });
  });
});

describe('InviteCandidates, the sandbox places the invitations use', () => {
  const workspaceEventsOf = (decision: ReturnType<typeof invite>): WorkspaceEvent[] | Refusal =>
    ('value' in decision ? decision.value.workspaceEvents : decision.error);

  it('uses none for a live key', () => {
    expect(workspaceEventsOf(invite([created], people(3), { mode: 'live', sandboxPlacesLeft: 0 }))).toEqual([]);
  });

  it('uses one place per new invitation of a sandbox key, in one event at the decision\'s time', () => {
    const history = [created, candidateInvited('bob@example.com', 'sandbox', 1)];
    const candidates = [...people(3), { email: 'bob@example.com' }, { email: 'not-an-address' }, { email: 'PERSON0@example.com' }];
    expect(workspaceEventsOf(invite(history, candidates, { mode: 'sandbox', sandboxPlacesLeft: 3 }))).toEqual([placesUsed(3)]);
  });

  it('uses none when a sandbox request invites nobody new', () => {
    const history = [created, candidateInvited('bob@example.com', 'sandbox', 1)];
    expect(workspaceEventsOf(invite(history, [{ email: 'bob@example.com' }, { email: 'not-an-address' }], { mode: 'sandbox', sandboxPlacesLeft: 0 }))).toEqual([]);
  });
});

describe('InviteCandidates, whole-request refusals', () => {
  it.each([
    ['missing', undefined], ['null', null], ['an object', { email: 'ann@example.com' }], ['a string', 'ann@example.com'], ['empty', []],
  ])('refuses candidates %s with validation_failed', (_label, candidates) => {
    expect(invite([created], candidates)).toEqual(refused('validation_failed'));
  });

  it('accepts 100 people and refuses 101 with too_many_candidates', () => {
    const decision = invite([created], people(100));
    expect('value' in decision && decision.value.events).toHaveLength(100);
    expect(invite([created], people(101))).toEqual(refused('too_many_candidates'));
  });

  it('refuses an unverified workspace with 403 workspace_unverified', () => {
    expect(invite([created], people(1), { workspaceVerified: false })).toEqual(refused('workspace_unverified'));
  });

  it('refuses a closed assessment with assessment_closed', () => {
    expect(invite([created, closed], people(1))).toEqual(refused('assessment_closed'));
  });

  it('still invites on the day of the deadline (UTC) and refuses from the day after', () => {
    const history = [assessmentCreated({ deadline: TODAY })];
    expect(outcomesOf(invite(history, people(1), { metadata: { now: '2026-10-20T23:59:59.999Z' } }))).toEqual([invited('person0@example.com', 0)]);
    expect(invite(history, people(1), { metadata: { now: '2026-10-21T00:00:00.000Z' } })).toEqual(refused('assessment_closed'));
    expect(invite([assessmentCreated({ deadline: '2026-10-19' })], people(1))).toEqual(refused('assessment_closed'));
  });

  it('refuses a sandbox request whose new invitations exceed the places left, inviting nobody', () => {
    expect(invite([created], people(3), { mode: 'sandbox', sandboxPlacesLeft: 2 })).toEqual(refused('sandbox_limit'));
    expect(invite([created], people(1), { mode: 'sandbox', sandboxPlacesLeft: 0 })).toEqual(refused('sandbox_limit'));
    const decision = invite([created], people(2), { mode: 'sandbox', sandboxPlacesLeft: 2 });
    expect('value' in decision && decision.value.events).toHaveLength(2);
  });

  it('uses no place for entries that end already_invited or failed', () => {
    const history = [created, candidateInvited('bob@example.com', 'sandbox', 1)];
    const candidates = [{ email: 'bob@example.com' }, { email: 'not-an-address' }, 17, { email: 'ann@example.com' }];
    expect(outcomesOf(invite(history, candidates, { mode: 'sandbox', sandboxPlacesLeft: 1 }))).toEqual([
      entry('bob@example.com', 'already_invited', 'already_invited', { invitationToken: 'tok-1' }),
      failed('not-an-address', 'invalid_email'),
      failed('', 'invalid_entry'),
      invited('ann@example.com', 0),
    ]);
    expect(outcomesOf(invite(history, candidates.slice(0, 3), { mode: 'sandbox', sandboxPlacesLeft: 0 }))).toHaveLength(3);
  });

  it('ignores the sandbox allowance for a live key', () => {
    const decision = invite([created], people(3), { mode: 'live', sandboxPlacesLeft: 0 });
    expect('value' in decision && decision.value.events).toHaveLength(3);
  });

  it('refuses in the documented order', () => {
    const pastDeadline = [assessmentCreated({ deadline: '2026-10-19' })];
    const everythingWrong = { workspaceVerified: false, mode: 'sandbox' as const, sandboxPlacesLeft: 0 };
    expect(invite([created, closed], [], everythingWrong)).toEqual(refused('validation_failed'));
    expect(invite([created, closed], people(101), everythingWrong)).toEqual(refused('too_many_candidates'));
    expect(invite([created, closed], people(1), everythingWrong)).toEqual(refused('workspace_unverified'));
    expect(invite(pastDeadline, people(1), { ...everythingWrong, workspaceVerified: true })).toEqual(refused('assessment_closed'));
    expect(invite([created], people(1), { ...everythingWrong, workspaceVerified: true })).toEqual(refused('sandbox_limit'));
  });
});

describe('invitationAddresses (whose claims the decision reads)', () => {
  it('gives the valid addresses, normalized, each once, in the order sent', () => {
    expect(invitationAddresses([{ email: ' Bob@Example.com' }, 'oops', { email: 'nope' }, { email: 'ann@example.com' }, { email: 'BOB@example.com' }, { email: 7 }]))
      .toEqual(['bob@example.com', 'ann@example.com']);
  });

  it('gives none for a request refused whole for its size, or not a list', () => {
    expect(MAX_CANDIDATES_PER_REQUEST).toBe(100);
    expect(invitationAddresses(people(100))).toHaveLength(100);
    expect(invitationAddresses(people(101))).toEqual([]);
    expect(invitationAddresses({ email: 'ann@example.com' })).toEqual([]);
  });
});
