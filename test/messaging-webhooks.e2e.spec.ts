import { jest } from '@jest/globals';
import { startService, type RunningService } from './support/service.js';
import { eventually, hmacHex, parseSignature, startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './support/messaging-receivers.js';
import { ISO_TIME, TEST_SLUGS, uniqueEmail, world } from './support/messaging-world.js';

jest.setTimeout(60_000);

/**
 * Webhooks end to end: a real receiver on loopback, the compiled service, every event through the
 * internal application and the public API, exactly as an integrator sees it.
 */
describe('webhooks (e2e)', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let w: ReturnType<typeof world>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startService({ WEBHOOK_ALLOW_INSECURE: 'true', SIMULATED_CLOCK: 'true' });
    w = world(service);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
  });

  const forWorkspace = (workspaceId: string): ReceivedWebhook[] => receiver.requests.filter((request) => request.body?.workspaceId === workspaceId);
  const waitForEvents = (workspaceId: string, count: number, what: string) =>
    receiver.waitFor(() => forWorkspace(workspaceId).length >= count, 15_000, what).then(() => forWorkspace(workspaceId));
  const one = (requests: ReceivedWebhook[], event: string): ReceivedWebhook => {
    const found = requests.filter((request) => request.body.event === event);
    expect(found).toHaveLength(1);
    return found[0] as ReceivedWebhook;
  };

  /** Headers and signature of one request, checked against the workspace's secret(s), current first. */
  const expectSigned = (request: ReceivedWebhook, secrets: string[]): void => {
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-webhook-id']).toBe(request.body.id);
    const timestamp = request.headers['x-webhook-timestamp'];
    expect(timestamp).toMatch(/^\d{9,11}$/);
    // Real time (product decisions, Time), even with the simulated clock moved forward.
    expect(Math.abs(Number(timestamp) - request.receivedAt / 1000)).toBeLessThan(30);
    const signature = parseSignature(request.headers['x-webhook-signature']);
    expect(signature.t).toBe(timestamp);
    expect(signature.v1).toStrictEqual(secrets.map((secret) => hmacHex(secret, signature.t, request.raw)));
  };

  const expectEnvelope = (request: ReceivedWebhook, workspaceId: string, sandbox: boolean): void => {
    const keys = ['createdAt', 'data', 'event', 'id', 'workspaceId', ...(sandbox ? ['sandbox'] : [])].sort();
    expect(Object.keys(request.body).sort()).toStrictEqual(keys);
    // The id of the recorded domain event (checked against the log in the journey below).
    expect(request.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(request.body.createdAt).toMatch(ISO_TIME);
    expect(request.body.workspaceId).toBe(workspaceId);
    if (sandbox) expect(request.body.sandbox).toBe(true);
  };

  const LOCKED = {
    unlocked: false, unlockedAt: null, scorePercentage: null, speedCompleted: null, questionsAnswered: null,
    questionsCorrect: null, questionsIncorrect: null, questionsTotal: null, result: null, scores: null,
  };

  /** Runs one candidate through the whole life cycle and checks the payload of every event against the public API. */
  const journey = async (mode: 'live' | 'sandbox') => {
    const ws = await w.workspace({ url: receiver.url });
    const client = mode === 'live' ? ws.live : ws.sandbox;
    const assessment = await w.assessment(client, { name: `  Backend ${mode} engineer  ` });
    expect(assessment.name).toBe(`Backend ${mode} engineer`);
    const email = uniqueEmail(`journey-${mode}`);
    const invited = await w.invite(client, assessment.id, [{ email: `  ${email.toUpperCase()} `, firstName: 'Ada', surname: 'Lovelace' }]);
    const entry = invited.body.data[0];
    expect(entry).toMatchObject({ email, status: 'invited', reason: null, candidateId: null });
    const { candidateId } = await w.register({ invitationUrl: entry.invitationUrl });
    await w.start(candidateId, assessment.id);
    const first = await w.complete(candidateId, assessment.id, TEST_SLUGS[0], { scorePercentage: 81.5, speedCompleted: 420, questionsAnswered: 20, questionsCorrect: 17, questionsIncorrect: 3, questionsTotal: 20 });
    expect(first.assessmentCompleted).toBe(false);
    const lockedResult = (await client.get(`/v1/results?assessment=${assessment.id}`)).body.data;
    const second = await w.complete(candidateId, assessment.id, TEST_SLUGS[1]);
    expect(second.assessmentCompleted).toBe(true);
    const completions = (await client.get(`/v1/completions?assessment=${assessment.id}`)).body.data;
    expect(completions).toHaveLength(1);
    const unlocked = await w.unlock(first.resultId);
    const resultsAfterUnlock = (await client.get(`/v1/results?assessment=${assessment.id}`)).body.data;

    // candidateInvited, candidateCreated, assessmentStarted, 2 × testCompleted, assessmentCompleted, resultUnlocked
    const requests = await waitForEvents(ws.id, 7, `7 ${mode} webhooks`);
    const secret = ws.secret as string;
    for (const request of requests) {
      expectSigned(request, [secret]);
      expectEnvelope(request, ws.id, mode === 'sandbox');
    }
    expect(requests.map((request) => request.body.event).sort()).toStrictEqual(
      ['assessmentCompleted', 'assessmentStarted', 'candidateCreated', 'candidateInvited', 'resultUnlocked', 'testCompleted', 'testCompleted'],
    );
    expect(new Set(requests.map((request) => request.body.id)).size).toBe(7);

    const candidate = { id: candidateId, email, firstName: 'Ada', surname: 'Lovelace' };
    const assessmentRef = { id: assessment.id, name: assessment.name };
    const strip = ({ candidate: _c, assessment: _a, reportUrl: _r, ...result }: Record<string, unknown>) => result;

    expect(one(requests, 'candidateInvited').body.data).toStrictEqual({ assessment: assessmentRef, invitation: entry });
    expect(one(requests, 'candidateCreated').body.data).toStrictEqual({ candidate });
    const started = one(requests, 'assessmentStarted').body.data;
    expect(started).toStrictEqual({ candidate, assessment: assessmentRef, startedAt: expect.stringMatching(ISO_TIME) });

    const tests = requests.filter((request) => request.body.event === 'testCompleted').map((request) => request.body.data);
    const firstTest = tests.find((data) => data.result.id === first.resultId);
    const secondTest = tests.find((data) => data.result.id === second.resultId);
    expect(firstTest).toStrictEqual({ candidate, assessment: assessmentRef, result: strip(lockedResult[0]) });
    expect(firstTest.result).toMatchObject({ ...LOCKED, testSlug: TEST_SLUGS[0], testType: 'library', completedAt: expect.stringMatching(ISO_TIME) });
    expect(secondTest).toMatchObject({ candidate, assessment: assessmentRef, result: { ...LOCKED, id: second.resultId, testSlug: TEST_SLUGS[1] } });

    // A Completion (2.7), exactly as GET /v1/completions showed it before the unlock: locked, null scores.
    const completion = one(requests, 'assessmentCompleted').body.data;
    expect(completion).toStrictEqual(completions[0]);
    expect(completion).toMatchObject({ id: `${candidateId}:${assessment.id}`, candidate, assessment: assessmentRef, unlocked: false, reportUrl: expect.any(String) });
    expect(completion.results).toHaveLength(2);
    for (const result of completion.results) expect(result).toMatchObject(LOCKED);

    const unlockedData = one(requests, 'resultUnlocked').body.data;
    const apiUnlocked = resultsAfterUnlock.find((result: { id: string }) => result.id === first.resultId);
    expect(unlockedData).toStrictEqual({ candidate, assessment: assessmentRef, result: strip(apiUnlocked) });
    expect(unlockedData.result).toMatchObject({
      id: first.resultId, unlocked: true, unlockedAt: unlocked.unlockedAt, scorePercentage: 81.5, speedCompleted: 420,
      questionsAnswered: 20, questionsCorrect: 17, questionsIncorrect: 3, questionsTotal: 20,
    });

    // The envelope id is the id of the recorded domain event (audit view), and the delivery log agrees.
    const candidateStream = await w.stream(`candidate-${candidateId}`);
    const assessmentStream = await w.stream(`assessment-${assessment.id}`);
    const eventId = (stream: { id: string; type: string }[], type: string) => stream.filter((event) => event.type === type).map((event) => event.id);
    expect([one(requests, 'candidateCreated').body.id]).toStrictEqual(eventId(candidateStream, 'CandidateCreated'));
    expect([one(requests, 'candidateInvited').body.id]).toStrictEqual(eventId(assessmentStream, 'CandidateInvited'));
    expect([one(requests, 'resultUnlocked').body.id]).toStrictEqual(eventId(candidateStream, 'ResultUnlocked'));
    const log = await eventually(() => w.deliveries(ws.id), (rows) => rows.length === 7 && rows.every((row) => row.status === 'succeeded'), 10_000, 'deliveries succeeded');
    expect(log.map((row) => row.eventId).sort()).toStrictEqual(requests.map((request) => request.body.id).sort());
    for (const row of log) {
      expect(row).toMatchObject({ url: receiver.url, attempts: 1, lastResponseStatus: 200, lastError: null });
      expect(row.attemptLog).toStrictEqual([{ at: expect.stringMatching(ISO_TIME), responseStatus: 200, durationMs: expect.any(Number), error: null }]);
      expect(row.event).toBe(requests.find((request) => request.body.id === row.eventId)?.body.event);
    }
    return { ws, requests };
  };

  it('sends all six events of a live candidate: envelope, data shapes, headers and signature', async () => {
    await journey('live');
  });

  it('marks every envelope of a test candidate with sandbox: true at the top level', async () => {
    await journey('sandbox');
  });

  it('keeps live envelopes free of the sandbox field, also for open sign-up through inviteUrl', async () => {
    const ws = await w.workspace({ url: receiver.url, events: ['candidateCreated'] });
    const assessment = await w.assessment(ws.sandbox);
    const email = uniqueEmail('open-signup');
    const { candidateId } = await w.register({ inviteUrl: assessment.inviteUrl, email, firstName: 'Grace', surname: 'Hopper' });
    const [request] = await waitForEvents(ws.id, 1, 'candidateCreated');
    expectEnvelope(request as ReceivedWebhook, ws.id, false);
    expect(request?.body).not.toHaveProperty('sandbox');
    expect(request?.body.data).toStrictEqual({ candidate: { id: candidateId, email, firstName: 'Grace', surname: 'Hopper' } });
  });

  it('sends only the events the workspace selected', async () => {
    const ws = await w.workspace({ url: receiver.url, events: ['resultUnlocked', 'testCompleted'] });
    expect((await w.webhook(ws.id)).events.sort()).toStrictEqual(['resultUnlocked', 'testCompleted']);
    const assessment = await w.assessment(ws.live);
    const email = uniqueEmail('selected');
    const invited = await w.invite(ws.live, assessment.id, [{ email }]);
    const { candidateId } = await w.register({ invitationUrl: invited.body.data[0].invitationUrl });
    await w.start(candidateId, assessment.id);
    const first = await w.complete(candidateId, assessment.id, TEST_SLUGS[0]);
    await w.complete(candidateId, assessment.id, TEST_SLUGS[1]);
    await w.unlock(first.resultId);
    // Every write above waited for the dispatcher, so every delivery row exists by now.
    const log = await w.deliveries(ws.id);
    expect(log.map((row) => row.event).sort()).toStrictEqual(['resultUnlocked', 'testCompleted', 'testCompleted']);
    await waitForEvents(ws.id, 3, 'selected events');
    await eventually(() => w.deliveries(ws.id), (rows) => rows.every((row) => row.status === 'succeeded'), 10_000, 'selected deliveries');
    expect(forWorkspace(ws.id).map((request) => request.body.event).sort()).toStrictEqual(['resultUnlocked', 'testCompleted', 'testCompleted']);
  });

  it('rejects an event selection that is empty or names an unknown event', async () => {
    const ws = await w.workspace();
    for (const events of [[], ['candidateDeleted'], 'testCompleted', ['testCompleted', 42]]) {
      const answer = await w.app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: receiver.url, events });
      expect({ events, status: answer.status, code: answer.body?.error?.code }).toStrictEqual({ events, status: 422, code: 'validation_failed' });
    }
    expect((await w.app.call('GET', `/internal/workspaces/${ws.id}/webhook`)).status).toBe(404);
  });

  // Moves the simulated clock: keep it last.
  it('signs with the new and the old secret for 24 hours after a rotation, then with the new one only', async () => {
    const ws = await w.workspace({ url: receiver.url, events: ['candidateCreated'] });
    const assessment = await w.assessment(ws.live);
    const signUp = (label: string) => w.register({ inviteUrl: assessment.inviteUrl, email: uniqueEmail(label) });
    const oldSecret = (await w.webhook(ws.id)).secret;
    expect(oldSecret).toBe(ws.secret);

    await signUp('before-rotation');
    const [beforeRotation] = await waitForEvents(ws.id, 1, 'first webhook');
    expectSigned(beforeRotation as ReceivedWebhook, [oldSecret]);

    const rotated = w.ok(await w.app.call('POST', `/internal/workspaces/${ws.id}/webhook/rotate-secret`), 200).body.data;
    expect(rotated).toStrictEqual({ url: receiver.url, events: ['candidateCreated'], secret: expect.any(String) });
    const newSecret: string = rotated.secret;
    expect(newSecret).not.toBe(oldSecret);
    expect((await w.webhook(ws.id)).secret).toBe(newSecret);

    await signUp('just-after-rotation');
    const afterRotation = (await waitForEvents(ws.id, 2, 'second webhook'))[1] as ReceivedWebhook;
    expectSigned(afterRotation, [newSecret, oldSecret]);
    expect(afterRotation.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);

    // 23 hours later: still both.
    w.ok(await w.app.call('POST', '/internal/clock', { advanceSeconds: 23 * 3600 }), 200);
    await signUp('23h-after-rotation');
    expectSigned((await waitForEvents(ws.id, 3, 'third webhook'))[2] as ReceivedWebhook, [newSecret, oldSecret]);

    // Past 24 hours: the new secret only.
    const moved = w.ok(await w.app.call('POST', '/internal/clock', { advanceSeconds: 3600 + 60 }), 200).body.data;
    expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(24 * 3600_000);
    await signUp('25h-after-rotation');
    const late = (await waitForEvents(ws.id, 4, 'fourth webhook'))[3] as ReceivedWebhook;
    expectSigned(late, [newSecret]);
    // Envelope createdAt is domain time: the moved clock shows there.
    expect(Date.parse(late.body.createdAt) - Date.now()).toBeGreaterThan(24 * 3600_000);
    // Saving the settings again keeps the (new) secret.
    const saved = w.ok(await w.app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: receiver.url, events: ['candidateCreated'] }), 200).body.data;
    expect(saved).toStrictEqual({ url: receiver.url, events: ['candidateCreated'], secret: newSecret, enabled: true, disabledReason: null });
  });
});
