import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { removeDataDir, startService, type RunningService } from './support/service.js';
import { eventually, hmacHex, parseSignature, sleep, startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './support/messaging-receivers.js';
import { ALL_EVENTS, TEST_SLUGS, uniqueEmail, world, type Delivery } from './support/messaging-world.js';

jest.setTimeout(120_000);

type World = ReturnType<typeof world>;

/** The envelope ids of these streams' events in the log's order (their global positions). */
const logOrder = async (w: World, streamIds: string[]): Promise<string[]> => {
  const events = (await Promise.all(streamIds.map((streamId) => w.stream(streamId)))).flat() as unknown as { id: string; position: string }[];
  return events.sort((a, b) => (BigInt(a.position) < BigInt(b.position) ? -1 : 1)).map((event) => event.id);
};

const recoverWindow = (w: World, workspaceId: string, body: unknown) => w.app.call('POST', `/internal/workspaces/${workspaceId}/webhook/recover`, body);

const expectSignedWith = (request: ReceivedWebhook, secrets: string[]): void => {
  expect(request.headers['x-webhook-id']).toBe(request.body.id);
  const signature = parseSignature(request.headers['x-webhook-signature']);
  expect(signature.t).toBe(request.headers['x-webhook-timestamp']);
  expect(signature.v1).toStrictEqual(secrets.map((secret) => hmacHex(secret, signature.t, request.raw)));
};

/**
 * Webhook recovery end to end: a receiver that was down while events happened gets that window
 * again, in the log's order, from the compiled service, PGlite, Redis and BullMQ.
 */
describe('webhook recovery (e2e)', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let w: World;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // Retries 1 ms apart at first: the deliveries missed while the receiver is down fail for good within seconds.
    service = await startService({ WEBHOOK_ALLOW_INSECURE: 'true', SIMULATED_CLOCK: 'true', WEBHOOK_BACKOFF_MS: '1' });
    w = world(service);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
  });

  const recover = (workspaceId: string, body: unknown) => recoverWindow(w, workspaceId, body);
  const ofWorkspace = (workspaceId: string, requests: ReceivedWebhook[] = receiver.requests) => requests.filter((request) => request.body?.workspaceId === workspaceId);
  const finishBoth = async (candidateId: string, assessmentId: string) => {
    for (const slug of TEST_SLUGS) await w.complete(candidateId, assessmentId, slug);
  };

  it('delivers again exactly the window the receiver missed, live and sandbox, in the log\'s order, with the original envelopes', async () => {
    const ws = await w.workspace({ url: receiver.url, events: ALL_EVENTS });
    const live = await w.assessment(ws.live);
    const sandbox = await w.assessment(ws.sandbox);

    // Before the window: one live invitation, delivered.
    const invited = (await w.invite(ws.live, live.id, [{ email: uniqueEmail('before') }])).body.data[0];
    const [before] = await receiver.waitFor(() => ofWorkspace(ws.id).length === 1, 15_000, 'the invitation').then(() => ofWorkspace(ws.id));
    await sleep(5);

    // The window: the receiver answers 500 to everything of this workspace.
    receiver.respond = (request) => ({ status: request.body?.workspaceId === ws.id ? 500 : 200 });
    const since = new Date(Date.parse(before?.body.createdAt) + 1).toISOString();
    const liveCandidate = (await w.register({ invitationUrl: invited.invitationUrl })).candidateId;
    await w.start(liveCandidate, live.id);
    await w.complete(liveCandidate, live.id, TEST_SLUGS[0]);
    const sandboxInvited = (await w.invite(ws.sandbox, sandbox.id, [{ email: uniqueEmail('window') }])).body.data[0];
    const sandboxCandidate = (await w.register({ invitationUrl: sandboxInvited.invitationUrl })).candidateId;
    await w.start(sandboxCandidate, sandbox.id);
    // The second test completes the assessment: testCompleted and assessmentCompleted share one time, the log orders them.
    await finishBoth(sandboxCandidate, sandbox.id);
    // Every write waited for its delivery rows; the (refused) requests follow from the worker.
    const missedIds = (requests: ReceivedWebhook[]) => new Set(ofWorkspace(ws.id, requests).map((request) => request.body.id).filter((id) => id !== before?.body.id));
    await receiver.waitFor((requests) => missedIds(requests).size === 9, 15_000, 'the first attempts of the missed events');
    const missed = new Map(ofWorkspace(ws.id).filter((request) => request.body.id !== before?.body.id).map((request) => [request.body.id as string, request]));
    expect([...missed.values()].map((request) => request.body.event).sort()).toStrictEqual([
      'assessmentCompleted', 'assessmentStarted', 'assessmentStarted', 'candidateCreated', 'candidateCreated', 'candidateInvited',
      'testCompleted', 'testCompleted', 'testCompleted',
    ]);
    expect(new Set([...missed.values()].map((request) => request.body.sandbox === true))).toStrictEqual(new Set([true, false]));
    const until = [...missed.values()].map((request) => request.body.createdAt as string).sort().at(-1) as string;
    await eventually(() => w.deliveries(ws.id), (rows) => rows.filter((row) => missed.has(row.eventId)).every((row) => row.status === 'failed' && row.attempts === 9), 60_000, 'the missed deliveries to fail for good');
    await sleep(5);

    // After the window: the receiver is back; the live candidate finishes, delivered at once.
    receiver.respond = () => ({ status: 200 });
    await w.complete(liveCandidate, live.id, TEST_SLUGS[1]);
    const after = await receiver.waitFor((requests) => ofWorkspace(ws.id, requests).filter((request) => !missed.has(request.body.id)).length === 3, 15_000, 'the events after the window')
      .then((requests) => ofWorkspace(ws.id, requests).filter((request) => !missed.has(request.body.id)).slice(1));
    expect(after.map((request) => request.body.createdAt > until)).toStrictEqual([true, true]);

    // Now: assessmentStarted no longer selected, and a new secret (the previous one still signs for 24 hours).
    w.ok(await w.app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: receiver.url, events: ALL_EVENTS.filter((event) => event !== 'assessmentStarted') }), 200);
    const secret = w.ok(await w.app.call('POST', `/internal/workspaces/${ws.id}/webhook/rotate-secret`), 200).body.data.secret as string;
    const rowsBefore = new Set((await w.deliveries(ws.id)).map((row) => row.id));
    const mark = receiver.requests.length;

    const answer = w.ok(await recover(ws.id, { since, until }), 202);
    const order = (await logOrder(w, [`assessment-${live.id}`, `assessment-${sandbox.id}`, `candidate-${liveCandidate}`, `candidate-${sandboxCandidate}`]))
      .filter((id) => missed.has(id) && missed.get(id)?.body.event !== 'assessmentStarted');
    expect(order).toHaveLength(7);
    expect(answer.body).toStrictEqual({ data: { count: 7 } });

    const recovered = await receiver.waitFor((requests) => requests.length - mark >= 7, 15_000, 'the recovered deliveries').then((requests) => requests.slice(mark));
    const rows = await eventually(() => w.deliveries(ws.id), (list) => list.filter((row) => !rowsBefore.has(row.id)).every((row) => row.status === 'succeeded'), 15_000, 'the recovered rows');
    await sleep(300);
    // Exactly the window's selected events, once each, in the log's order; nothing before or after it again.
    expect(receiver.requests.slice(mark).map((request) => request.body.id)).toStrictEqual(order);
    for (const request of recovered) {
      expect(request.raw).toBe(missed.get(request.body.id)?.raw);
      expectSignedWith(request, [secret, ws.secret as string]);
    }
    const made: Delivery[] = rows.filter((row) => !rowsBefore.has(row.id));
    expect(made.map((row) => row.eventId).reverse()).toStrictEqual(order);
    expect(made.every((row) => row.url === receiver.url && row.attempts === 1 && row.event === missed.get(row.eventId)?.body.event)).toBe(true);
  });

  it('answers 404 not_found for a workspace without a webhook, or none', async () => {
    const ws = await w.workspace();
    const body = { since: new Date(Date.now() - 3600_000).toISOString() };
    for (const workspaceId of [ws.id, 'ws_unknown']) {
      const answer = await recover(workspaceId, body);
      expect({ workspaceId, status: answer.status, code: answer.body?.error?.code }).toStrictEqual({ workspaceId, status: 404, code: 'not_found' });
    }
  });

  it('answers 422 validation_failed for a missing or malformed time, and since after until', async () => {
    const ws = await w.workspace({ url: receiver.url });
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    const bodies = [
      {}, { since: null }, { since: 'yesterday' }, { since: 1_795_000_000 }, { since: '2026-13-01' }, { since: '2026-11-20T09:00:00' },
      { since: hourAgo, until: 'now' }, { since: hourAgo, until: new Date(Date.now() - 7200_000).toISOString() },
    ];
    for (const body of bodies) {
      const answer = await recover(ws.id, body);
      expect({ body, status: answer.status, code: answer.body?.error?.code }).toStrictEqual({ body, status: 422, code: 'validation_failed' });
    }
    // A date names midnight UTC; until defaults to now.
    const today = new Date().toISOString().slice(0, 10);
    expect(w.ok(await recover(ws.id, { since: today }), 202).body).toStrictEqual({ data: { count: 0 } });
  });

  // Moves the simulated clock: keep it last.
  it('refuses a since more than 30 days before now on the domain clock', async () => {
    const ws = await w.workspace({ url: receiver.url });
    const since = new Date(Date.now() - 60_000).toISOString();
    expect(w.ok(await recover(ws.id, { since }), 202).body).toStrictEqual({ data: { count: 0 } });
    w.ok(await w.app.call('POST', '/internal/clock', { advanceSeconds: 30 * 24 * 3600 + 120 }), 200);
    const answer = await recover(ws.id, { since });
    expect({ status: answer.status, code: answer.body?.error?.code }).toStrictEqual({ status: 422, code: 'validation_failed' });
    expect(answer.body.error.message).toContain('30 days');
  });
});

describe('webhook recovery through a kill -9 (e2e)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hiring-e2e-recovery-crash-'));
  const env = { WEBHOOK_ALLOW_INSECURE: 'true' };
  let service: RunningService | null = null;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    if (service && service.process.exitCode === null) await service.stop();
    await receiver?.close();
    await removeDataDir(dataDir, env);
  });

  it('goes on after a restart from the delivery that was in flight, in the log\'s order, never two at once', async () => {
    service = await startService(env, { dataDir });
    let w = world(service);
    const ws = await w.workspace({ url: receiver.url, events: ['candidateInvited'] });
    const assessment = await w.assessment(ws.live);
    const since = new Date(Date.now() - 1000).toISOString();
    await w.invite(ws.live, assessment.id, Array.from({ length: 8 }, (_unused, index) => ({ email: uniqueEmail(`recover-crash-${index}`) })));
    const firsts = await eventually(() => w.deliveries(ws.id), (rows) => rows.length === 8 && rows.every((row) => row.status === 'succeeded'), 15_000, 'the first deliveries');
    const order = (await logOrder(w, [`assessment-${assessment.id}`])).filter((id) => receiver.requests.some((request) => request.body.id === id));
    expect(order).toHaveLength(8);

    // Armed: the third recovered request kills the service (kill -9) while it waits for the answer.
    const mark = receiver.requests.length;
    const first = service;
    const exited = new Promise((resolveExit) => first.process.once('exit', resolveExit));
    receiver.respond = (_request, index) => {
      if (index - mark === 2) first.process.kill('SIGKILL');
      return { status: 200, delayMs: index - mark === 2 ? 1_000 : 50 };
    };
    expect(w.ok(await recoverWindow(w, ws.id, { since }), 202).body).toStrictEqual({ data: { count: 8 } });
    await exited;
    receiver.respond = () => ({ status: 200, delayMs: 50 });

    service = await startService(env, { dataDir });
    w = world(service);
    const rows = await eventually(() => w.deliveries(ws.id), (list) => list.length === 16 && list.every((row) => row.status === 'succeeded'), 90_000, 'every recovered delivery');
    await sleep(300);
    // The one in flight at the kill again (same id), then the rest: one sequence, never two at once.
    const inFlight = order[2] as string;
    expect(receiver.requests.slice(mark).map((request) => request.body.id)).toStrictEqual([...order.slice(0, 3), inFlight, ...order.slice(3)]);
    const recovered = rows.filter((row) => !firsts.some((first) => first.id === row.id));
    expect(recovered.map((row) => row.eventId).reverse()).toStrictEqual(order);
    const attempts = recovered.find((row) => row.eventId === inFlight)?.attemptLog ?? [];
    expect(attempts.map((attempt) => attempt.error === null ? 'ok' : attempt.error.split(':')[0])).toStrictEqual(['interrupted', 'ok']);
  }, 180_000);
});
