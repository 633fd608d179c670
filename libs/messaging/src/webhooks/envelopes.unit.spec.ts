import { evolveCandidate, initialCandidateState, type CandidateEvent, type CandidateState, type DomainEvent } from '#domain';
import type { RecordedEvent } from '#event-store';
import { candidateStory, recordedEvent, SCORES, TESTS } from '../test-support/domain-events.js';
import { toWebhookEnvelope } from './envelopes.js';
import { asWebhookSourceEvent, type WebhookSourceEvent } from './webhook-events.js';

const appUrl = 'http://localhost:3100';
const [firstTest, secondTest] = TESTS as [typeof TESTS[number], typeof TESTS[number]];

const timeAt = (minute: number): string => new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString();

/** Records the story's events in one candidate stream and folds the candidate after each of them. */
const record = (events: CandidateEvent[], streamId: string): Array<{ event: RecordedEvent; state: CandidateState }> => {
  let state = initialCandidateState();
  return events.map((event, revision) => {
    state = evolveCandidate(state, event);
    return { event: recordedEvent(event, { streamId, revision, position: BigInt(100 + revision), time: timeAt(revision) }), state };
  });
};

const source = (event: RecordedEvent): WebhookSourceEvent => {
  const typed = asWebhookSourceEvent(event);
  if (!typed) throw new Error(`${event.type} is not a webhook source`);
  return typed;
};

describe('toWebhookEnvelope', () => {
  const story = candidateStory({ workspaceId: 'ws_1', mode: 'live' });
  const { events: e } = story;
  const steps = record([
    e.created(timeAt(0)), e.registered(timeAt(1)), e.started(timeAt(2)),
    e.testCompleted(timeAt(3), firstTest, 'res_1'), e.testCompleted(timeAt(4), secondTest, 'res_2'), e.assessmentCompleted(timeAt(4)),
    e.unlocked(timeAt(5), 'res_1'), e.unlocked(timeAt(6), 'res_2'),
  ], `candidate-${story.candidateId}`);
  const at = (index: number) => {
    const step = steps[index];
    if (!step) throw new Error(`no step ${index}`);
    return { event: source(step.event), state: step.state };
  };
  const assessment = { id: story.assessmentId, name: story.assessmentName };

  it('candidateCreated: the event id, its domain time, the workspace and the candidate; no sandbox flag when live', () => {
    const { event } = at(0);
    expect(toWebhookEnvelope(event, { appUrl, candidate: null })).toStrictEqual({
      id: event.id, event: 'candidateCreated', createdAt: timeAt(0), workspaceId: 'ws_1', data: { candidate: story.candidate },
    });
  });

  it('assessmentStarted carries candidate, assessment and startedAt', () => {
    const { event } = at(2);
    expect(toWebhookEnvelope(event, { appUrl, candidate: null })?.data).toStrictEqual({ candidate: story.candidate, assessment, startedAt: timeAt(2) });
  });

  it('testCompleted shows the result locked: unlocked false and every score null', () => {
    const { event, state } = at(3);
    expect(toWebhookEnvelope(event, { appUrl, candidate: state })?.data).toStrictEqual({
      candidate: story.candidate, assessment,
      result: {
        id: 'res_1', testSlug: firstTest.slug, testName: firstTest.name, testType: 'library', completedAt: timeAt(3),
        unlocked: false, unlockedAt: null, scorePercentage: null, speedCompleted: null, questionsAnswered: null,
        questionsCorrect: null, questionsIncorrect: null, questionsTotal: null, result: null, scores: null,
      },
    });
  });

  it('assessmentCompleted is a Completion with locked results and the report link', () => {
    const { event, state } = at(5);
    const envelope = toWebhookEnvelope(event, { appUrl, candidate: state });
    expect(envelope?.event).toBe('assessmentCompleted');
    expect(envelope?.data).toMatchObject({
      id: `${story.candidateId}:${story.assessmentId}`, candidate: story.candidate, assessment, completedAt: timeAt(4), updatedAt: timeAt(4),
      unlocked: false, reportUrl: `${appUrl}/candidates/${story.candidateId}/report`,
    });
    // The fields in the order of the API document (2.7, with 1.2.0's updatedAt after completedAt), as GET /v1/completions sends them.
    expect(Object.keys(envelope?.data ?? {})).toStrictEqual(['id', 'candidate', 'assessment', 'completedAt', 'updatedAt', 'unlocked', 'results', 'reportUrl']);
    expect((envelope?.data as { results: Array<{ id: string; scorePercentage: number | null }> }).results.map(({ id, scorePercentage }) => ({ id, scorePercentage })))
      .toStrictEqual([{ id: 'res_1', scorePercentage: null }, { id: 'res_2', scorePercentage: null }]);
  });

  it('a Completion is unlocked only when every result is, and its updatedAt is the latest unlock of the results it is shown with', () => {
    const { event } = at(5);
    expect(toWebhookEnvelope(event, { appUrl, candidate: at(6).state })?.data).toMatchObject({ unlocked: false, completedAt: timeAt(4), updatedAt: timeAt(5) });
    expect(toWebhookEnvelope(event, { appUrl, candidate: at(7).state })?.data).toMatchObject({ unlocked: true, completedAt: timeAt(4), updatedAt: timeAt(6) });
  });

  it('resultUnlocked shows the scores and the unlock time', () => {
    const { event, state } = at(6);
    expect(toWebhookEnvelope(event, { appUrl, candidate: state })?.data).toMatchObject({
      candidate: story.candidate, assessment,
      result: { id: 'res_1', unlocked: true, unlockedAt: timeAt(5), scorePercentage: SCORES.scorePercentage, questionsTotal: 24, result: 'strong', scores: { openness: 71 } },
    });
  });

  it('resultUnlocked without the result in the folded candidate has no payload', () => {
    expect(toWebhookEnvelope(at(6).event, { appUrl, candidate: initialCandidateState() })).toBeNull();
  });
});

describe('sandbox envelopes', () => {
  const story = candidateStory({ workspaceId: 'ws_2', mode: 'sandbox' });

  it('candidateInvited carries sandbox: true and the invitation entry with its personal link', () => {
    const invited = recordedEvent(story.events.invited(timeAt(0), 'tok_xyz'), { streamId: `assessment-${story.assessmentId}`, revision: 1, position: 7n, time: timeAt(0) });
    expect(toWebhookEnvelope(source(invited), { appUrl, candidate: null })).toStrictEqual({
      id: invited.id, event: 'candidateInvited', createdAt: timeAt(0), workspaceId: 'ws_2', sandbox: true,
      data: {
        assessment: { id: story.assessmentId, name: story.assessmentName },
        invitation: {
          email: story.candidate.email, firstName: 'Ada', surname: 'Lovelace', status: 'invited', reason: null, candidateId: null,
          invitationUrl: `${appUrl}/invitations/${story.assessmentId}/tok_xyz`,
        },
      },
    });
  });

  it('candidate events of a test candidate carry sandbox: true', () => {
    const created = recordedEvent(story.events.created(timeAt(0)), { streamId: `candidate-${story.candidateId}`, revision: 0, position: 8n, time: timeAt(0) });
    expect(toWebhookEnvelope(source(created), { appUrl, candidate: null })?.sandbox).toBe(true);
  });
});

describe('asWebhookSourceEvent', () => {
  it('ignores events that are not webhooks', () => {
    const story = candidateStory({ workspaceId: 'ws_3', mode: 'live' });
    const registered: DomainEvent = story.events.registered(timeAt(0));
    expect(asWebhookSourceEvent(recordedEvent(registered, { streamId: 's', revision: 1, position: 1n, time: timeAt(0) }))).toBeNull();
  });
});
