import { jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { api } from './support/client.js';
import { removeDataDir, startService, type RunningService } from './support/service.js';
import { eventually, sleep, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { ALL_EVENTS, TEST_SLUGS, uniqueEmail, world, type Delivery } from './support/messaging-world.js';

jest.setTimeout(180_000);

const AUDIT_ENTRY = resolve('dist/apps/audit/src/main.js');
const WEBHOOK_EVENT_TYPES: Record<string, string> = {
  CandidateCreated: 'candidateCreated', CandidateInvited: 'candidateInvited', AssessmentStarted: 'assessmentStarted',
  TestCompleted: 'testCompleted', AssessmentCompleted: 'assessmentCompleted', ResultUnlocked: 'resultUnlocked',
};

/**
 * Crash safety of the messaging side: `kill -9` while webhook deliveries are in flight, restart on the
 * same DATA_DIR (and Redis), and every event is still delivered, each under one stable envelope id.
 */
describe('messaging crash safety (e2e)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hiring-e2e-crash-'));
  const env = { WEBHOOK_ALLOW_INSECURE: 'true' };
  let service: RunningService | null = null;
  let receiver: WebhookReceiver;

  // Shared between the two tests (the second one starts from what the first one left).
  let workspaceId = '';
  let liveCredential = '';
  const invitedEmails: string[] = [];
  const candidateIds: string[] = [];
  let assessmentId = '';

  beforeAll(async () => {
    // Slow on purpose: every delivery is in flight for 300 ms.
    receiver = await startWebhookReceiver(() => ({ status: 200, delayMs: 300 }));
  });

  afterAll(async () => {
    if (service && service.process.exitCode === null) await service.stop();
    await receiver?.close();
    await removeDataDir(dataDir, env);
  });

  /** Every webhook source event of the workspace, from the audit view of its streams: what must be delivered. */
  const expectedEvents = async (w: ReturnType<typeof world>): Promise<Map<string, string>> => {
    const expected = new Map<string, string>();
    for (const streamId of [`assessment-${assessmentId}`, ...candidateIds.map((id) => `candidate-${id}`)]) {
      for (const event of await w.stream(streamId)) {
        const name = WEBHOOK_EVENT_TYPES[event.type];
        if (name && event.data?.workspaceId === workspaceId) expected.set(event.id, name);
      }
    }
    return expected;
  };

  it('delivers every event exactly under one envelope id after a kill -9 during deliveries', async () => {
    service = await startService(env, { dataDir });
    let w = world(service);
    const ws = await w.workspace({ url: receiver.url, events: ALL_EVENTS });
    workspaceId = ws.id;
    liveCredential = ws.liveCredential;
    const assessment = await w.assessment(ws.live, { tests: [TEST_SLUGS[0]] });
    assessmentId = assessment.id;

    // 7 × (invited, created, started) = 21 events in three bursts, awaited: all dispatched, most still to be delivered.
    for (let i = 0; i < 7; i += 1) invitedEmails.push(uniqueEmail(`crash-${i}`));
    const invited = await w.invite(ws.live, assessment.id, invitedEmails.map((email) => ({ email })));
    const urls: string[] = invited.body.data.map((entry: { invitationUrl: string }) => entry.invitationUrl);
    const registered = await Promise.all(urls.map((url) => w.register({ invitationUrl: url })));
    candidateIds.push(...registered.map(({ candidateId }) => candidateId));
    await Promise.all(candidateIds.map((candidateId) => w.start(candidateId, assessment.id)));
    // Armed now: the next webhook request to arrive kills the service (kill -9) while it waits for the answer.
    const first = service;
    const exited = new Promise((resolveExit) => first.process.once('exit', resolveExit));
    let killedAt = -1;
    let killTime = 0;
    receiver.respond = (_request, index) => {
      if (killedAt < 0) {
        killedAt = index;
        killTime = Date.now();
        first.process.kill('SIGKILL');
      }
      return { status: 200, delayMs: 300 };
    };
    // More writes, not awaited (testCompleted + assessmentCompleted each): the kill may land anywhere in them,
    // and they make sure a request arrives after arming.
    const unawaited = candidateIds.map((candidateId) => w.app.complete(candidateId, assessment.id, TEST_SLUGS[0]).catch(() => null));
    await exited;
    receiver.respond = () => ({ status: 200, delayMs: 300 });
    await Promise.all(unawaited);
    // Requests whose answer was due after the kill (300 ms after arrival): the service never got it, so
    // they must come again. (Whether the receiver managed to write its answer to the dead socket says nothing.)
    const beforeRestart = receiver.requests.length;
    const inFlight = receiver.requests.filter((request) => request.receivedAt + 300 > killTime + 50);
    expect(inFlight).toContain(receiver.requests[killedAt]);
    const neverAnswered = new Set(inFlight.map((request) => request.body.id as string));

    // Restart on the same DATA_DIR.
    service = await startService(env, { dataDir });
    w = world(service);
    const expected = await expectedEvents(w);
    expect(expected.size).toBeGreaterThanOrEqual(21);

    const settled = await eventually(
      () => w.deliveries(workspaceId),
      (rows) => rows.length >= expected.size && rows.every((row) => row.status === 'succeeded'),
      120_000,
      'every delivery succeeded after the restart',
    );
    // One delivery per event (no resends here), each succeeded.
    expect(settled.map((row) => row.eventId).sort()).toStrictEqual([...expected.keys()].sort());
    for (const row of settled) expect(row.event).toBe(expected.get(row.eventId));

    // The receiver got every event; any duplicate carries the same X-Webhook-Id and the same bytes.
    await sleep(500);
    const byId = new Map<string, Set<string>>();
    for (const request of receiver.requests) {
      expect(request.headers['x-webhook-id']).toBe(request.body.id);
      const bodies = byId.get(request.body.id) ?? new Set<string>();
      bodies.add(request.raw);
      byId.set(request.body.id, bodies);
    }
    expect([...byId.keys()].sort()).toStrictEqual([...expected.keys()].sort());
    for (const [id, bodies] of byId) expect({ id, distinctBodies: bodies.size }).toStrictEqual({ id, distinctBodies: 1 });
    for (const request of receiver.requests) expect(request.body.event).toBe(expected.get(request.body.id));
    // What was in flight at the kill was sent again after the restart, under the same id.
    const afterRestart = new Set(receiver.requests.slice(beforeRestart).map((request) => request.body.id as string));
    for (const id of neverAnswered) expect({ id, resentAfterRestart: afterRestart.has(id) }).toStrictEqual({ id, resentAfterRestart: true });
    // And the delivery log shows each of those attempts, as interrupted, before the one that succeeded.
    const rowOf = new Map(settled.map((row) => [row.eventId, row]));
    for (const id of neverAnswered) {
      const log = rowOf.get(id)?.attemptLog ?? [];
      expect({ id, interruptedFirst: log[0]?.error?.startsWith('interrupted') === true, lastSucceeded: log.at(-1)?.error === null })
        .toStrictEqual({ id, interruptedFirst: true, lastSucceeded: true });
    }

    // Every invited address has its one e-mail.
    for (const email of invitedEmails) expect(await w.emails(email)).toHaveLength(1);
  });

  // Runs on every build: without dist/apps/audit the rebuild exits non-zero and the test fails with its output.
  it('rebuilds the read models without sending any webhook or e-mail again', async () => {
    // The first test left the restarted service running.
    expect({ exitCode: service?.process.exitCode, signalCode: service?.process.signalCode }).toStrictEqual({ exitCode: null, signalCode: null });
    const snapshot = async (running: RunningService) => {
      const client = api(running, liveCredential);
      // Links are built on APP_URL, which follows the internal port of each start.
      const read = async (path: string) => JSON.parse((await client.get(path)).text.replaceAll(running.internalUrl.replace('127.0.0.1', 'localhost'), '<APP_URL>'));
      return {
        deliveries: (await world(running).deliveries(workspaceId)).map((row: Delivery) => `${row.id}:${row.eventId}:${row.status}:${row.attempts}`).sort(),
        emails: await Promise.all(invitedEmails.map((email) => world(running).emails(email))),
        candidates: await read('/v1/candidates?limit=100'),
        completions: await read('/v1/completions?limit=100'),
        results: await read('/v1/results?limit=100'),
        assessment: await read(`/v1/assessments/${assessmentId}`),
      };
    };
    const before = await snapshot(service!);
    expect(before.candidates.data).toHaveLength(candidateIds.length);
    await service!.stop();
    const received = receiver.requests.length;

    const rebuild = spawn(process.execPath, [AUDIT_ENTRY, 'rebuild'], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    rebuild.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    rebuild.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    const code = await new Promise<number | null>((resolveExit) => rebuild.once('exit', (exitCode) => resolveExit(exitCode)));
    expect({ code, output }).toStrictEqual({ code: 0, output: expect.stringMatching(/rebuilt \d+ read models from \d+ events/) });

    service = await startService(env, { dataDir });
    // Read models rebuilt: the public API shows exactly what it showed before; nothing was sent again.
    await sleep(1_500);
    expect(await snapshot(service)).toStrictEqual(before);
    expect(receiver.requests.length).toBe(received);
  });
});
