import type { AssessmentEvent, CandidateEmailEvent, CandidateEvent } from '../events.js';
import { assessmentDecider } from '../assessments/assessment.decider.js';
import { fold } from '../shared/decider.js';
import type { Mode } from '../shared/types.js';
import {
  ASSESSMENT_ID, DAY_MS, INVITE_TOKEN, NOW, TODAY, WORKSPACE_ID, assessmentCreated, at, attempt, candidateAdded, candidateCreated,
  candidateInvited, candidateRegistered, emailClaimed, existing, libraryTest, refused,
} from '../testing/decider-fixtures.js';
import { evolveCandidate, evolveCandidateEmail, initialCandidateEmailState, initialCandidateState } from './candidate.state.js';
import { type RegistrationVia, decideRegistration, resolveRegistrant } from './register-candidate.js';

interface Streams {
  assessment: AssessmentEvent[];
  email?: CandidateEmailEvent[];
  candidate?: CandidateEvent[];
}

/** Given the three streams registration spans, when RegisterCandidate: then their events, or a refusal. */
const register = (streams: Streams, via: RegistrationVia, now = NOW) =>
  attempt(() => {
    const assessment = existing(fold(assessmentDecider, streams.assessment));
    return decideRegistration({
      assessment,
      registrant: resolveRegistrant(assessment, via),
      emailState: fold({ initialState: initialCandidateEmailState, evolve: evolveCandidateEmail }, streams.email ?? []),
      candidate: fold({ initialState: initialCandidateState, evolve: evolveCandidate }, streams.candidate ?? []),
      newCandidateId: 'c-new',
      now,
    });
  });

const byInvitation = (token: string): RegistrationVia => ({ kind: 'invitation', token });
// The person as the edge's DTO types them (the address normalized, absent names empty): apps/simulator/src/candidates/candidates.dto.unit.spec.ts.
const byInviteUrl = (email: string, names: { firstName?: string; surname?: string } = {}, token = INVITE_TOKEN): RegistrationVia =>
  ({ kind: 'inviteUrl', token, email, firstName: names.firstName ?? '', surname: names.surname ?? '' });

const created = assessmentCreated();
const closed: AssessmentEvent = { type: 'AssessmentClosed', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, closedAt: at(-60_000) } };
const TESTS = [libraryTest('numerical-reasoning'), libraryTest('verbal-reasoning')];

/** The events of a first registration of a new person. */
const newCandidateEvents = (email: string, mode: Mode, names: { firstName: string; surname: string }, invitationId: string | null) => ({
  created: true,
  candidateId: 'c-new',
  candidateEvents: [
    { type: 'CandidateCreated', data: { candidateId: 'c-new', workspaceId: WORKSPACE_ID, mode, email, ...names, createdAt: NOW } },
    {
      type: 'CandidateRegistered',
      data: { candidateId: 'c-new', workspaceId: WORKSPACE_ID, mode, assessmentId: ASSESSMENT_ID, assessmentName: 'Backend engineer', tests: TESTS, invitationId, registeredAt: NOW },
    },
  ],
  emailEvents: [{ type: 'CandidateEmailClaimed', data: { workspaceId: WORKSPACE_ID, email, candidateId: 'c-new', mode, claimedAt: NOW } }],
  assessmentEvents: [{
    type: 'AssessmentCandidateAdded',
    data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId: 'c-new', email, mode, invitationId, addedAt: NOW },
  }],
});

/** Ann, a registered candidate of the assessment (through her invitation). */
const registered = (mode: Mode, assessmentHistory: AssessmentEvent[] = [created]): Streams => ({
  assessment: [...assessmentHistory, candidateInvited('ann@example.com', mode, 1), candidateAdded('ann@example.com', mode, 'c-1', 'inv-1')],
  email: [emailClaimed('c-1', 'ann@example.com', mode)],
  candidate: [candidateCreated('c-1', 'ann@example.com', mode), candidateRegistered('c-1', mode, { invitationId: 'inv-1' })],
});
const noEvents = { created: false, candidateId: 'c-1', candidateEvents: [], emailEvents: [], assessmentEvents: [] };

describe('registration through a personal invitation', () => {
  it.each(['live', 'sandbox'] as const)('makes a new %s candidate of the invited person', (mode) => {
    const assessment = [created, candidateInvited('ann@example.com', mode, 1, { firstName: 'Ann', surname: 'Lee' })];
    expect(register({ assessment }, byInvitation('tok-1'))).toEqual({ value: newCandidateEvents('ann@example.com', mode, { firstName: 'Ann', surname: 'Lee' }, 'inv-1') });
  });

  it('registers a candidate of the workspace on a further assessment without creating them again', () => {
    const streams: Streams = {
      assessment: [created, candidateInvited('ann@example.com', 'live', 1)],
      email: [emailClaimed('c-1', 'ann@example.com', 'live')],
      candidate: [candidateCreated('c-1', 'ann@example.com', 'live'), candidateRegistered('c-1', 'live', { assessmentId: 'as-other' })],
    };
    expect(register(streams, byInvitation('tok-1'))).toEqual({
      value: {
        created: false,
        candidateId: 'c-1',
        candidateEvents: [{
          type: 'CandidateRegistered',
          data: { candidateId: 'c-1', workspaceId: WORKSPACE_ID, mode: 'live', assessmentId: ASSESSMENT_ID, assessmentName: 'Backend engineer', tests: TESTS, invitationId: 'inv-1', registeredAt: NOW },
        }],
        emailEvents: [],
        assessmentEvents: [{
          type: 'AssessmentCandidateAdded',
          data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId: 'c-1', email: 'ann@example.com', mode: 'live', invitationId: 'inv-1', addedAt: NOW },
        }],
      },
    });
  });

  it.each(['live', 'sandbox'] as const)('changes nothing when a %s candidate registers again, even closed or past the deadline', (mode) => {
    expect(register(registered(mode), byInvitation('tok-1'))).toEqual({ value: noEvents });
    expect(register(registered(mode, [created, closed]), byInvitation('tok-1'))).toEqual({ value: noEvents });
    expect(register(registered(mode, [assessmentCreated({ deadline: '2026-10-01' })]), byInvitation('tok-1'))).toEqual({ value: noEvents });
  });

  it('refuses a new registration on a closed assessment with invalid_state', () => {
    expect(register({ assessment: [created, candidateInvited('ann@example.com', 'live', 1), closed] }, byInvitation('tok-1'))).toEqual(refused('invalid_state'));
  });

  it('registers on the day of the deadline and refuses from the day after', () => {
    const assessment = [assessmentCreated({ deadline: TODAY }), candidateInvited('ann@example.com', 'live', 1)];
    expect(register({ assessment }, byInvitation('tok-1'), '2026-10-20T23:59:59.999Z')).toMatchObject({ value: { created: true } });
    expect(register({ assessment }, byInvitation('tok-1'), '2026-10-21T00:00:00.000Z')).toEqual(refused('invalid_state'));
  });

  it('refuses a sandbox invitation of an address that is a live candidate with 409 live_candidate', () => {
    const streams: Streams = {
      assessment: [created, candidateInvited('ann@example.com', 'sandbox', 1)],
      email: [emailClaimed('c-1', 'ann@example.com', 'live')],
      candidate: [candidateCreated('c-1', 'ann@example.com', 'live')],
    };
    expect(register(streams, byInvitation('tok-1'))).toEqual(refused('live_candidate'));
  });

  it('refuses a live invitation of an address that is a test candidate with 409 sandbox_candidate', () => {
    const streams: Streams = {
      assessment: [created, candidateInvited('ann@example.com', 'live', 1)],
      email: [emailClaimed('c-1', 'ann@example.com', 'sandbox')],
      candidate: [candidateCreated('c-1', 'ann@example.com', 'sandbox')],
    };
    expect(register(streams, byInvitation('tok-1'))).toEqual(refused('sandbox_candidate'));
  });

  it('answers not_found for an unknown link, or the link of a deleted test candidate', () => {
    expect(register({ assessment: [created, candidateInvited('ann@example.com', 'live', 1)] }, byInvitation('tok-404'))).toEqual(refused('not_found'));
    expect(register({ assessment: [created] }, byInvitation(INVITE_TOKEN))).toEqual(refused('not_found'));
    const removed: AssessmentEvent = {
      type: 'AssessmentCandidateRemoved',
      data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, candidateId: 'c-1', email: 'ann@example.com', mode: 'sandbox', invitationId: 'inv-1', removedAt: at(-60_000) },
    };
    expect(register({ ...registered('sandbox'), assessment: [...registered('sandbox').assessment, removed] }, byInvitation('tok-1'))).toEqual(refused('not_found'));
  });

  it('makes a new person of a deleted test candidate invited again', () => {
    const deleted: CandidateEvent = {
      type: 'CandidateDeleted',
      data: { candidateId: 'c-1', workspaceId: WORKSPACE_ID, mode: 'sandbox', email: 'ann@example.com', assessmentIds: ['as-other'], resultIds: [], deletedAt: at(-DAY_MS) },
    };
    const released: CandidateEmailEvent = { type: 'CandidateEmailReleased', data: { workspaceId: WORKSPACE_ID, email: 'ann@example.com', candidateId: 'c-1', releasedAt: at(-DAY_MS) } };
    const streams: Streams = {
      assessment: [created, candidateInvited('ann@example.com', 'sandbox', 2)],
      email: [emailClaimed('c-1', 'ann@example.com', 'sandbox'), released],
      candidate: [candidateCreated('c-1', 'ann@example.com', 'sandbox'), deleted],
    };
    expect(register(streams, byInvitation('tok-2'))).toEqual({ value: newCandidateEvents('ann@example.com', 'sandbox', { firstName: '', surname: '' }, 'inv-2') });
  });
});

describe('registration through the public inviteUrl', () => {
  it('makes a new live candidate of the person signing up', () => {
    expect(register({ assessment: [created] }, byInviteUrl('ann@example.com', { firstName: 'Ann', surname: 'Lee' })))
      .toEqual({ value: newCandidateEvents('ann@example.com', 'live', { firstName: 'Ann', surname: 'Lee' }, null) });
  });

  it('accepts a pending live invitation of the address', () => {
    const assessment = [created, candidateInvited('ann@example.com', 'live', 1, { firstName: 'Invited' })];
    expect(register({ assessment }, byInviteUrl('ann@example.com'))).toEqual({ value: newCandidateEvents('ann@example.com', 'live', { firstName: '', surname: '' }, 'inv-1') });
  });

  it('makes a live candidate even when a sandbox invitation of the address is pending', () => {
    const assessment = [created, candidateInvited('ann@example.com', 'sandbox', 1)];
    expect(register({ assessment }, byInviteUrl('ann@example.com'))).toEqual({ value: newCandidateEvents('ann@example.com', 'live', { firstName: '', surname: '' }, null) });
  });

  it('changes nothing when the candidate signs up again, even on a closed assessment', () => {
    expect(register(registered('live'), byInviteUrl('ann@example.com'))).toEqual({ value: noEvents });
    expect(register(registered('live', [created, closed]), byInviteUrl('ann@example.com'))).toEqual({ value: noEvents });
  });

  it('refuses a new sign-up on a closed or past-deadline assessment with invalid_state', () => {
    expect(register({ assessment: [created, closed] }, byInviteUrl('ann@example.com'))).toEqual(refused('invalid_state'));
    expect(register({ assessment: [assessmentCreated({ deadline: '2026-10-19' })] }, byInviteUrl('ann@example.com'))).toEqual(refused('invalid_state'));
  });

  it('refuses a test candidate with 409 sandbox_candidate', () => {
    expect(register(registered('sandbox'), byInviteUrl('ann@example.com'))).toEqual(refused('sandbox_candidate'));
    const elsewhere: Streams = { assessment: [created], email: [emailClaimed('c-1', 'ann@example.com', 'sandbox')], candidate: [candidateCreated('c-1', 'ann@example.com', 'sandbox')] };
    expect(register(elsewhere, byInviteUrl('ann@example.com'))).toEqual(refused('sandbox_candidate'));
  });

  it('answers not_found for a link that is not the assessment\'s', () => {
    expect(register({ assessment: [created] }, byInviteUrl('ann@example.com', {}, 'another-token'))).toEqual(refused('not_found'));
    expect(register({ assessment: [created, candidateInvited('ann@example.com', 'live', 1)] }, byInviteUrl('ann@example.com', {}, 'tok-1'))).toEqual(refused('not_found'));
  });
});
