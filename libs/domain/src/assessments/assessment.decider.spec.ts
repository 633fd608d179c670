import type { AssessmentEvent } from '../events.js';
import { CATALOGUE } from '../catalogue/catalogue.data.js';
import type { TestRef } from '../shared/types.js';
import { ASSESSMENT_ID, DAY_MS, NOW, TODAY, WORKSPACE_ID, assessmentCreated, at, existing, given, libraryTest, refused } from '../testing/decider-fixtures.js';
import { type AssessmentCommand, assessmentDecider } from './assessment.decider.js';

const lookupTest = (slug: string): TestRef | undefined => (CATALOGUE.some((test) => test.slug === slug) ? libraryTest(slug) : undefined);
const SLUGS = CATALOGUE.map((test) => test.slug);

// Bodies the edge would refuse are passed on as they are, to check that the decider keeps its invariants.
const create = (body: Record<string, unknown>, now = NOW): AssessmentCommand => ({
  type: 'CreateAssessment', assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, inviteToken: 'invite-new',
  name: body.name as string, tests: body.tests as string[], deadline: (body.deadline ?? null) as string | null, lookupTest, metadata: { now },
});
const valid = { name: 'Backend engineer', tests: ['numerical-reasoning', 'verbal-reasoning'] };
const created = assessmentCreated();
const closed: AssessmentEvent = { type: 'AssessmentClosed', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, closedAt: at(-DAY_MS) } };
const customTest: TestRef = { slug: 'custom-quiz', name: 'Our quiz', type: 'custom' };

describe('assessment decider', () => {
  describe('CreateAssessment', () => {
    it('creates the assessment with the catalogue tests in the given order', () => {
      const decision = given(assessmentDecider, []).when(create({ name: '  Backend engineer  ', tests: ['verbal-reasoning', 'numerical-reasoning'] }));
      expect(decision).toEqual({
        events: [{
          type: 'AssessmentCreated',
          data: {
            assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, name: 'Backend engineer',
            tests: [
              { slug: 'verbal-reasoning', name: 'Verbal Reasoning', type: 'library' },
              { slug: 'numerical-reasoning', name: 'Numerical Reasoning', type: 'library' },
            ],
            deadline: null, inviteToken: 'invite-new', createdAt: NOW,
          },
        }],
      });
    });

    it.each([
      ['omitted', undefined, null],
      ['null', null, null],
      ['today', TODAY, TODAY],
      ['tomorrow', '2026-10-21', '2026-10-21'],
      ['a leap day', '2028-02-29', '2028-02-29'],
    ])('accepts a deadline %s', (_label, deadline, stored) => {
      const body = deadline === undefined ? valid : { ...valid, deadline };
      expect(given(assessmentDecider, []).when(create(body))).toMatchObject({ events: [{ type: 'AssessmentCreated', data: { deadline: stored } }] });
    });

    it('takes today from the UTC date of the clock', () => {
      expect(given(assessmentDecider, []).when(create({ ...valid, deadline: TODAY }, '2026-10-20T23:59:59.999Z'))).toMatchObject({ events: [{ data: { deadline: TODAY } }] });
      expect(given(assessmentDecider, []).when(create({ ...valid, deadline: TODAY }, '2026-10-21T00:00:00.000Z'))).toEqual(refused('validation_failed'));
    });

    it.each([
      ['yesterday', '2026-10-19'],
      ['not a calendar date', '2026-02-30'],
      ['not a leap year', '2027-02-29'],
      ['month 13', '2026-13-01'],
      ['without dashes', '20261021'],
      ['a date-time', '2026-10-21T00:00:00Z'],
      ['empty', ''],
      ['a number', 20261021],
      ['an object', { date: '2026-10-21' }],
    ])('refuses a deadline that is %s', (_label, deadline) => {
      expect(given(assessmentDecider, []).when(create({ ...valid, deadline }))).toEqual(refused('validation_failed'));
    });

    it('accepts names of 1 and of 200 characters after trimming', () => {
      expect(given(assessmentDecider, []).when(create({ ...valid, name: ' x ' }))).toMatchObject({ events: [{ data: { name: 'x' } }] });
      const long = 'n'.repeat(200);
      expect(given(assessmentDecider, []).when(create({ ...valid, name: `  ${long}  ` }))).toMatchObject({ events: [{ data: { name: long } }] });
    });

    it.each([
      ['missing', undefined],
      ['empty', ''],
      ['blank', ' \t\n '],
      ['201 characters', 'n'.repeat(201)],
      ['a number', 7],
      ['null', null],
      ['a list', ['Backend']],
    ])('refuses a name that is %s', (_label, name) => {
      expect(given(assessmentDecider, []).when(create({ ...valid, name }))).toEqual(refused('validation_failed'));
    });

    it('accepts ten tests', () => {
      const decision = given(assessmentDecider, []).when(create({ ...valid, tests: SLUGS.slice(0, 10) }));
      expect(decision).toMatchObject({ events: [{ data: { tests: SLUGS.slice(0, 10).map(lookupTest) } }] });
    });

    it.each([
      ['missing', undefined],
      ['empty', []],
      ['eleven tests', SLUGS.slice(0, 11)],
      ['a single slug, not a list', 'numerical-reasoning'],
      ['a list with a number', ['numerical-reasoning', 3]],
      ['a list with null', [null]],
      ['a repeated slug', ['numerical-reasoning', 'verbal-reasoning', 'numerical-reasoning']],
    ])('refuses tests that are %s', (_label, tests) => {
      expect(given(assessmentDecider, []).when(create({ ...valid, tests }))).toEqual(refused('validation_failed'));
    });

    it.each([[['numerical-reasoning', 'no-such-test']], [['NUMERICAL-REASONING']], [['']], [['custom-quiz']]])('answers unknown_test for %j', (tests) => {
      expect(given(assessmentDecider, []).when(create({ ...valid, tests }))).toEqual(refused('unknown_test'));
    });

    it('checks the fields before the catalogue', () => {
      expect(given(assessmentDecider, []).when(create({ name: '', tests: ['no-such-test'] }))).toEqual(refused('validation_failed'));
      expect(given(assessmentDecider, []).when(create({ ...valid, tests: ['no-such-test'], deadline: '2026-10-19' }))).toEqual(refused('validation_failed'));
    });

    it('refuses to create an assessment that exists', () => {
      expect(given(assessmentDecider, [created]).when(create(valid))).toEqual(refused('invalid_state'));
    });

    it('starts active with no invitations nor candidates', () => {
      const state = existing(given(assessmentDecider, [created]).state);
      expect(state).toMatchObject({ status: 'active', inviteToken: 'invite-token-1' });
      expect([state.invitations.size, state.candidates.size, state.invitationTokens.size]).toEqual([0, 0, 0]);
    });
  });

  describe('CloseAssessment', () => {
    const close = (workspaceId?: string): AssessmentCommand => ({ type: 'CloseAssessment', workspaceId, metadata: { now: NOW } });

    it('archives the assessment', () => {
      expect(given(assessmentDecider, [created]).when(close(WORKSPACE_ID))).toEqual({
        events: [{ type: 'AssessmentClosed', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, closedAt: NOW } }],
      });
      expect(given(assessmentDecider, [created, closed]).state).toMatchObject({ status: 'archived' });
    });

    it('changes nothing when already closed', () => {
      expect(given(assessmentDecider, [created, closed]).when(close(WORKSPACE_ID))).toEqual({ events: [] });
    });

    it('answers not_found for an unknown assessment or one of another workspace', () => {
      expect(given(assessmentDecider, []).when(close(WORKSPACE_ID))).toEqual(refused('not_found'));
      expect(given(assessmentDecider, [created]).when(close('ws-other'))).toEqual(refused('not_found'));
    });
  });

  describe('AddTestToAssessment', () => {
    const add = (test: TestRef, workspaceId: string = WORKSPACE_ID): AssessmentCommand => ({ type: 'AddTestToAssessment', workspaceId, test, metadata: { now: NOW } });

    it('appends the test', () => {
      expect(given(assessmentDecider, [created]).when(add(customTest))).toEqual({
        events: [{ type: 'AssessmentTestAdded', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, test: customTest, addedAt: NOW } }],
      });
      const added: AssessmentEvent = { type: 'AssessmentTestAdded', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, test: customTest, addedAt: NOW } };
      expect(existing(given(assessmentDecider, [created, added]).state).tests.map((test) => test.slug)).toEqual(['numerical-reasoning', 'verbal-reasoning', 'custom-quiz']);
    });

    it('refuses a test already on the assessment, or an eleventh test', () => {
      expect(given(assessmentDecider, [created]).when(add(libraryTest('verbal-reasoning')))).toEqual(refused('validation_failed'));
      const full = assessmentCreated({ tests: SLUGS.slice(0, 10).map(libraryTest) });
      expect(given(assessmentDecider, [full]).when(add(customTest))).toEqual(refused('validation_failed'));
    });

    it('refuses a closed assessment and hides one of another workspace', () => {
      expect(given(assessmentDecider, [created, closed]).when(add(customTest))).toEqual(refused('invalid_state'));
      expect(given(assessmentDecider, [created]).when(add(customTest, 'ws-other'))).toEqual(refused('not_found'));
    });
  });

  describe('InviteCandidates', () => {
    it('records one CandidateInvited per new invitation', () => {
      const decision = given(assessmentDecider, [created]).when({
        type: 'InviteCandidates', mode: 'live', candidates: [{ email: 'ann@example.com' }, { email: 'bad' }],
        workspaceVerified: true, sandboxPlacesLeft: 25, knownCandidates: {},
        newInvitation: (index) => ({ invitationId: `inv-new-${index}`, invitationToken: `tok-new-${index}` }), metadata: { now: NOW },
      });
      expect(decision).toEqual({
        events: [{
          type: 'CandidateInvited',
          data: {
            assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, assessmentName: 'Backend engineer', deadline: null,
            invitationId: 'inv-new-0', invitationToken: 'tok-new-0', mode: 'live', email: 'ann@example.com', firstName: '', surname: '', invitedAt: NOW,
          },
        }],
      });
    });

    it.each([
      ['does not exist', [], WORKSPACE_ID],
      ['belongs to another workspace', [created], 'ws-other'],
    ])('answers not_found for an assessment that %s', (_label, history, workspaceId) => {
      const decision = given(assessmentDecider, history).when({
        type: 'InviteCandidates', workspaceId, mode: 'live', candidates: [{ email: 'ann@example.com' }], workspaceVerified: true, sandboxPlacesLeft: 25,
        knownCandidates: {}, newInvitation: () => ({ invitationId: 'i', invitationToken: 't' }), metadata: { now: NOW },
      });
      expect(decision).toEqual(refused('not_found'));
    });
  });
});
