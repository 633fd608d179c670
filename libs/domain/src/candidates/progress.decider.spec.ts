import type { AssessmentEvent, CandidateEvent, WorkspaceEvent } from '../events.js';
import { assessmentDecider } from '../assessments/assessment.decider.js';
import { fold } from '../shared/decider.js';
import type { Mode } from '../shared/types.js';
import {
  ASSESSMENT_ID, DAY_MS, NOW, SCORES, TODAY, WORKSPACE_ID, assessmentCreated, at, attempt, candidateCreated, candidateRegistered, existing,
  libraryTest, refused, testCompleted, workspaceCreated,
} from '../testing/decider-fixtures.js';
import { workspaceDecider } from '../workspaces/workspace.decider.js';
import { decideCompleteTest, decideStart, progressOf, requireCandidate } from './candidate-progress.js';
import { evolveCandidate, initialCandidateState } from './candidate.state.js';
import { decideDeleteCandidate, decideUnlock } from './unlock-and-delete.js';

const assessmentOf = (events: AssessmentEvent[]) => existing(fold(assessmentDecider, events));
const candidateOf = (events: CandidateEvent[]) => existing(fold({ initialState: initialCandidateState, evolve: evolveCandidate }, events));
const workspaceOf = (events: WorkspaceEvent[]) => existing(fold(workspaceDecider, events));

const created = assessmentCreated();
const closed: AssessmentEvent = { type: 'AssessmentClosed', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, closedAt: at(-60_000) } };
const pastDeadline = assessmentCreated({ deadline: '2026-10-19' });
const ANN = { id: 'c-1', email: 'ann@example.com', firstName: 'Ann', surname: 'Lee' };

/** Ann, registered on the assessment; `history` continues her stream. */
const ann = (history: CandidateEvent[] = [], mode: Mode = 'live'): CandidateEvent[] =>
  [candidateCreated('c-1', 'ann@example.com', mode), candidateRegistered('c-1', mode), ...history];
const startedAt = at(-2 * 3_600_000);
const started = (mode: Mode = 'live'): CandidateEvent => ({
  type: 'AssessmentStarted',
  data: { candidateId: 'c-1', workspaceId: WORKSPACE_ID, mode, assessmentId: ASSESSMENT_ID, candidate: ANN, assessmentName: 'Backend engineer', startedAt },
});
const base = { candidateId: 'c-1', workspaceId: WORKSPACE_ID, mode: 'live', assessmentId: ASSESSMENT_ID, candidate: ANN, assessmentName: 'Backend engineer' };

const start = (candidate: CandidateEvent[], assessment: AssessmentEvent[], now = NOW) =>
  attempt(() => decideStart(candidateOf(candidate), assessmentOf(assessment), now));
const complete = (candidate: CandidateEvent[], assessment: AssessmentEvent[], slug: string, now = NOW) =>
  attempt(() => decideCompleteTest({ candidate: candidateOf(candidate), assessment: assessmentOf(assessment), slug, scores: SCORES, resultId: 'r-new', now }));

const deleted = (mode: Mode = 'sandbox'): CandidateEvent => ({
  type: 'CandidateDeleted',
  data: { candidateId: 'c-1', workspaceId: WORKSPACE_ID, mode, email: 'ann@example.com', assessmentIds: [ASSESSMENT_ID], resultIds: [], deletedAt: at(-60_000) },
});

describe('StartAssessment', () => {
  it('starts a registered candidate', () => {
    expect(start(ann(), [created])).toEqual({ value: [{ type: 'AssessmentStarted', data: { ...base, startedAt: NOW } }] });
  });

  it('changes nothing once started, once a test is finished, or once completed, even past the deadline', () => {
    expect(start(ann([started()]), [created])).toEqual({ value: [] });
    expect(start(ann([testCompleted('c-1', 'live', 'numerical-reasoning', 'r-1')]), [created])).toEqual({ value: [] });
    expect(start(ann([started()]), [pastDeadline])).toEqual({ value: [] });
  });

  it('starts on the day of the deadline and refuses from the day after with invalid_state', () => {
    const deadlineToday = [assessmentCreated({ deadline: TODAY })];
    expect(start(ann(), deadlineToday, '2026-10-20T23:59:59.999Z')).toMatchObject({ value: [{ type: 'AssessmentStarted' }] });
    expect(start(ann(), deadlineToday, '2026-10-21T00:00:00.000Z')).toEqual(refused('invalid_state'));
  });

  it('refuses a closed assessment with invalid_state, started or not', () => {
    expect(start(ann(), [created, closed])).toEqual(refused('invalid_state'));
    expect(start(ann([started()]), [created, closed])).toEqual(refused('invalid_state'));
  });

  it('refuses a candidate who is not registered on the assessment with invalid_state', () => {
    const elsewhere = [candidateCreated('c-1', 'ann@example.com', 'live'), candidateRegistered('c-1', 'live', { assessmentId: 'as-other' })];
    expect(start(elsewhere, [created])).toEqual(refused('invalid_state'));
    expect(start(ann(), [assessmentCreated({ workspaceId: 'ws-other' })])).toEqual(refused('invalid_state'));
  });

  it('answers not_found for a deleted candidate', () => {
    expect(start(ann([deleted()], 'sandbox'), [created])).toEqual(refused('not_found'));
    expect(attempt(() => requireCandidate(fold({ initialState: initialCandidateState, evolve: evolveCandidate }, ann([deleted()], 'sandbox'))))).toEqual(refused('not_found'));
  });
});

describe('CompleteTest', () => {
  const completedEvent = (slug: string) => ({ type: 'TestCompleted', data: { ...base, resultId: 'r-new', test: libraryTest(slug), completedAt: NOW, scores: SCORES } });

  it('starts the assessment first when the candidate had not started it', () => {
    expect(complete(ann(), [created], 'verbal-reasoning')).toEqual({
      value: { events: [{ type: 'AssessmentStarted', data: { ...base, startedAt: NOW } }, completedEvent('verbal-reasoning')], resultId: 'r-new', assessmentCompleted: false },
    });
  });

  it('records the finished test of a started candidate', () => {
    expect(complete(ann([started()]), [created], 'numerical-reasoning')).toEqual({
      value: { events: [completedEvent('numerical-reasoning')], resultId: 'r-new', assessmentCompleted: false },
    });
  });

  it('completes the assessment when every test is finished, in any order', () => {
    const history = ann([started(), testCompleted('c-1', 'live', 'verbal-reasoning', 'r-1')]);
    expect(complete(history, [created], 'numerical-reasoning')).toEqual({
      value: {
        events: [completedEvent('numerical-reasoning'), { type: 'AssessmentCompleted', data: { ...base, completedAt: NOW } }],
        resultId: 'r-new',
        assessmentCompleted: true,
      },
    });
  });

  it('starts and completes a one-test assessment at once', () => {
    const oneTest = [assessmentCreated({ tests: [libraryTest('verbal-reasoning')] })];
    const decision = complete(ann(), oneTest, 'verbal-reasoning');
    expect('value' in decision && decision.value.events.map((event) => event.type)).toEqual(['AssessmentStarted', 'TestCompleted', 'AssessmentCompleted']);
  });

  it('waits for a test appended to the assessment', () => {
    const added: AssessmentEvent = {
      type: 'AssessmentTestAdded', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, test: { slug: 'custom-quiz', name: 'Quiz', type: 'custom' }, addedAt: at(-DAY_MS) },
    };
    const history = ann([started(), testCompleted('c-1', 'live', 'verbal-reasoning', 'r-1')]);
    expect(complete(history, [created, added], 'numerical-reasoning')).toMatchObject({ value: { assessmentCompleted: false } });
  });

  it('refuses a test finished twice with 409 already_completed', () => {
    expect(complete(ann([started(), testCompleted('c-1', 'live', 'verbal-reasoning', 'r-1')]), [created], 'verbal-reasoning')).toEqual(refused('already_completed'));
  });

  it('refuses a test that is not part of the assessment with invalid_state', () => {
    expect(complete(ann([started()]), [created], 'abstract-reasoning')).toEqual(refused('invalid_state'));
  });

  it('refuses an unregistered candidate or a closed assessment with invalid_state', () => {
    const elsewhere = [candidateCreated('c-1', 'ann@example.com', 'live'), candidateRegistered('c-1', 'live', { assessmentId: 'as-other' })];
    expect(complete(elsewhere, [created], 'verbal-reasoning')).toEqual(refused('invalid_state'));
    expect(complete(ann([started()]), [created, closed], 'verbal-reasoning')).toEqual(refused('invalid_state'));
  });

  it('lets a candidate who started before the deadline finish after it, but not one who had not started', () => {
    expect(complete(ann([started()]), [pastDeadline], 'verbal-reasoning')).toMatchObject({ value: { events: [{ type: 'TestCompleted' }] } });
    expect(complete(ann(), [pastDeadline], 'verbal-reasoning')).toEqual(refused('invalid_state'));
  });

  it('answers not_found for a deleted candidate', () => {
    expect(complete(ann([started('sandbox'), deleted()], 'sandbox'), [created], 'verbal-reasoning')).toEqual(refused('not_found'));
  });

  it('moves progress from not_started to in_progress to completed', () => {
    const progress = (events: CandidateEvent[]) => {
      const entry = candidateOf(events).assessments[ASSESSMENT_ID];
      return entry ? progressOf(entry) : 'unregistered';
    };
    const completedAll: CandidateEvent = { type: 'AssessmentCompleted', data: { ...base, mode: 'live', completedAt: at(-60_000) } };
    expect(progress(ann())).toBe('not_started');
    expect(progress(ann([started()]))).toBe('in_progress');
    expect(progress(ann([testCompleted('c-1', 'live', 'verbal-reasoning', 'r-1')]))).toBe('in_progress');
    expect(progress(ann([testCompleted('c-1', 'live', 'verbal-reasoning', 'r-1'), testCompleted('c-1', 'live', 'numerical-reasoning', 'r-2'), completedAll]))).toBe('completed');
  });
});

describe('UnlockResult and billing', () => {
  const finished = (mode: Mode = 'live') =>
    ann([started(mode), testCompleted('c-1', mode, 'verbal-reasoning', 'r-1'), testCompleted('c-1', mode, 'numerical-reasoning', 'r-2')], mode);
  const unlocked = (resultId: string, charged: boolean, mode: Mode = 'live'): CandidateEvent => ({
    type: 'ResultUnlocked', data: { ...base, mode, resultId, unlockedAt: at(-60_000), charged },
  });
  const unlock = (candidate: CandidateEvent[], workspace: WorkspaceEvent[], resultId: string) =>
    attempt(() => decideUnlock(candidateOf(candidate), workspaceOf(workspace), resultId, NOW));

  it('unlocks and charges a live candidate once the free allowance is used', () => {
    expect(unlock(finished(), [workspaceCreated({ freeAllowance: 0 })], 'r-1')).toEqual({
      value: {
        candidateEvents: [{ type: 'ResultUnlocked', data: { ...base, resultId: 'r-1', unlockedAt: NOW, charged: true } }],
        workspaceEvents: [{ type: 'CandidateCharged', data: { workspaceId: WORKSPACE_ID, candidateId: 'c-1', resultId: 'r-1', chargedAt: NOW } }],
        unlockedAt: NOW,
        charged: true,
      },
    });
  });

  it('uses the free allowance first, without charging', () => {
    expect(unlock(finished(), [workspaceCreated({ freeAllowance: 1 })], 'r-2')).toEqual({
      value: {
        candidateEvents: [{ type: 'ResultUnlocked', data: { ...base, resultId: 'r-2', unlockedAt: NOW, charged: false } }],
        workspaceEvents: [{ type: 'FreeAllowanceUsed', data: { workspaceId: WORKSPACE_ID, candidateId: 'c-1', resultId: 'r-2', usedAt: NOW } }],
        unlockedAt: NOW,
        charged: false,
      },
    });
  });

  it('charges a candidate once however many of their results are unlocked', () => {
    const charged: WorkspaceEvent = { type: 'CandidateCharged', data: { workspaceId: WORKSPACE_ID, candidateId: 'c-1', resultId: 'r-1', chargedAt: at(-60_000) } };
    expect(unlock([...finished(), unlocked('r-1', true)], [workspaceCreated(), charged], 'r-2')).toEqual({
      value: {
        candidateEvents: [{ type: 'ResultUnlocked', data: { ...base, resultId: 'r-2', unlockedAt: NOW, charged: false } }],
        workspaceEvents: [],
        unlockedAt: NOW,
        charged: false,
      },
    });
  });

  it('answers a second unlock with the first unlock time, charging nothing and recording nothing', () => {
    const history = [...finished(), unlocked('r-1', true)];
    expect(candidateOf(history).assessments[ASSESSMENT_ID]?.results['verbal-reasoning']?.unlockedAt).toBe(at(-60_000));
    expect(unlock(history, [workspaceCreated()], 'r-1')).toEqual({ value: { candidateEvents: [], workspaceEvents: [], unlockedAt: at(-60_000), charged: false } });
  });

  it('never bills a test candidate', () => {
    expect(unlock(finished('sandbox'), [workspaceCreated({ freeAllowance: 0 })], 'r-1')).toEqual({
      value: {
        candidateEvents: [{ type: 'ResultUnlocked', data: { ...base, mode: 'sandbox', resultId: 'r-1', unlockedAt: NOW, charged: false } }],
        workspaceEvents: [],
        unlockedAt: NOW,
        charged: false,
      },
    });
  });

  it('answers not_found for an unknown result, or one of a deleted candidate', () => {
    expect(unlock(finished(), [workspaceCreated()], 'r-404')).toEqual(refused('not_found'));
    expect(unlock([...finished('sandbox'), deleted()], [workspaceCreated()], 'r-1')).toEqual(refused('not_found'));
  });
});

describe('DeleteCandidate', () => {
  const other = { assessmentId: 'as-2', assessmentName: 'Data analyst' };
  const twoAssessments = (mode: Mode) => ann([
    testCompleted('c-1', mode, 'verbal-reasoning', 'r-1'),
    candidateRegistered('c-1', mode, other),
    { ...testCompleted('c-1', mode, 'numerical-reasoning', 'r-2'), data: { ...testCompleted('c-1', mode, 'numerical-reasoning', 'r-2').data, ...other } },
  ], mode);
  const removed = (assessmentId: string, invitationId: string | null): AssessmentEvent => ({
    type: 'AssessmentCandidateRemoved',
    data: { assessmentId, workspaceId: WORKSPACE_ID, candidateId: 'c-1', email: 'ann@example.com', mode: 'sandbox', invitationId, removedAt: NOW },
  });

  it('deletes a test candidate and takes them off every assessment', () => {
    expect(attempt(() => decideDeleteCandidate(candidateOf(twoAssessments('sandbox')), { [ASSESSMENT_ID]: 'inv-1', 'as-2': null }, NOW))).toEqual({
      value: {
        candidateEvents: [{
          type: 'CandidateDeleted',
          data: { candidateId: 'c-1', workspaceId: WORKSPACE_ID, mode: 'sandbox', email: 'ann@example.com', assessmentIds: [ASSESSMENT_ID, 'as-2'], resultIds: ['r-1', 'r-2'], deletedAt: NOW },
        }],
        emailEvents: [{ type: 'CandidateEmailReleased', data: { workspaceId: WORKSPACE_ID, email: 'ann@example.com', candidateId: 'c-1', releasedAt: NOW } }],
        assessmentEvents: { [ASSESSMENT_ID]: [removed(ASSESSMENT_ID, 'inv-1')], 'as-2': [removed('as-2', null)] },
      },
    });
  });

  it('withdraws their unused invitations on other assessments, once each', () => {
    const decision = attempt(() => decideDeleteCandidate(candidateOf(twoAssessments('sandbox')), { [ASSESSMENT_ID]: 'inv-1', 'as-2': null }, NOW, [
      { assessmentId: 'as-3', invitationId: 'inv-3' },
      { assessmentId: 'as-2', invitationId: 'inv-2' },
    ]));
    expect(decision).toMatchObject({
      value: {
        assessmentEvents: {
          [ASSESSMENT_ID]: [removed(ASSESSMENT_ID, 'inv-1')],
          'as-2': [removed('as-2', null)],
          'as-3': [{ type: 'InvitationWithdrawn', data: { assessmentId: 'as-3', workspaceId: WORKSPACE_ID, email: 'ann@example.com', invitationId: 'inv-3', withdrawnAt: NOW } }],
        },
      },
    });
  });

  it('a withdrawn invitation is gone from the assessment, so the address can be invited again', () => {
    const invited: AssessmentEvent = {
      type: 'CandidateInvited',
      data: {
        assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, assessmentName: 'Backend engineer', deadline: null, invitationId: 'inv-9', invitationToken: 'tok-9',
        mode: 'sandbox', email: 'ann@example.com', firstName: 'Ann', surname: 'Lee', invitedAt: NOW,
      },
    };
    const withdrawn: AssessmentEvent = { type: 'InvitationWithdrawn', data: { assessmentId: ASSESSMENT_ID, workspaceId: WORKSPACE_ID, email: 'ann@example.com', invitationId: 'inv-9', withdrawnAt: NOW } };
    expect(assessmentOf([created, invited]).invitations.get('ann@example.com')?.invitationId).toBe('inv-9');
    expect(assessmentOf([created, invited, withdrawn]).invitations.has('ann@example.com')).toBe(false);
  });

  it('refuses a live candidate with 409 not_a_test_candidate', () => {
    expect(attempt(() => decideDeleteCandidate(candidateOf(twoAssessments('live')), {}, NOW))).toEqual(refused('not_a_test_candidate'));
  });

  it('answers not_found for a candidate already deleted', () => {
    expect(attempt(() => decideDeleteCandidate(candidateOf(ann([deleted()], 'sandbox')), { [ASSESSMENT_ID]: 'inv-1' }, NOW))).toEqual(refused('not_found'));
  });
});
