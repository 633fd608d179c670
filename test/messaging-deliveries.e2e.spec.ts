import { jest } from '@jest/globals';
import { freeLoopbackPort } from '#platform';
import { startService, type RunningService } from './support/service.js';
import { eventually, sleep, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { ISO_TIME, uniqueEmail, world, type Delivery } from './support/messaging-world.js';

jest.setTimeout(60_000);

/**
 * The webhook delivery log, retries, disabling, resends and the address rules, end to end.
 * WEBHOOK_BACKOFF_MS=50 (the harness default): retry delays are 50 ms, 250 ms, 1.5 s, 6 s, …
 */
describe('webhook deliveries (e2e)', () => {
  let service: RunningService;
  let strict: RunningService;
  let w: ReturnType<typeof world>;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    [service, strict] = await Promise.all([
      startService({ WEBHOOK_ALLOW_INSECURE: 'true', SIMULATED_CLOCK: 'true' }),
      // The product default: insecure addresses not allowed.
      startService(),
    ]);
    w = world(service);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([service?.stop(), strict?.stop()]);
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  const receiver = async (...args: Parameters<typeof startWebhookReceiver>): Promise<WebhookReceiver> => {
    const started = await startWebhookReceiver(...args);
    receivers.push(started);
    return started;
  };

  /** A workspace whose webhook sends candidateCreated only, and a way to raise one such event. */
  const setup = async (url: string) => {
    const ws = await w.workspace({ url, events: ['candidateCreated'] });
    const assessment = await w.assessment(ws.live);
    const signUp = async () => {
      const email = uniqueEmail('delivery');
      const { candidateId } = await w.register({ inviteUrl: assessment.inviteUrl, email });
      return { candidateId, email };
    };
    return { ws, signUp };
  };

  const deliveriesUntil = (workspaceId: string, accept: (rows: Delivery[]) => boolean, what: string, timeoutMs = 10_000) =>
    eventually(() => w.deliveries(workspaceId), accept, timeoutMs, what);

  const attempt = (responseStatus: number | null, error: string | null) =>
    ({ at: expect.stringMatching(ISO_TIME), responseStatus, durationMs: expect.any(Number), error });

  it('retries after failed attempts on the schedule, logs every attempt and keeps the envelope id', async () => {
    const hooks = await receiver((_request, index) => ({ status: index < 2 ? 500 : 200 }));
    const { ws, signUp } = await setup(hooks.url);
    const { candidateId, email } = await signUp();
    await hooks.waitFor((requests) => requests.length >= 3, 10_000, 'three attempts');

    const [row] = await deliveriesUntil(ws.id, (rows) => rows[0]?.status === 'succeeded', 'delivery succeeded');
    expect(row).toStrictEqual({
      id: expect.any(String), eventId: expect.any(String), event: 'candidateCreated', url: hooks.url, status: 'succeeded', attempts: 3,
      attemptLog: [attempt(500, 'http_500'), attempt(500, 'http_500'), attempt(200, null)],
      lastResponseStatus: 200, lastError: null, createdAt: expect.stringMatching(ISO_TIME), updatedAt: expect.stringMatching(ISO_TIME),
    });
    const times = row!.attemptLog.map((entry) => Date.parse(entry.at));
    expect([...times].sort((a, b) => a - b)).toStrictEqual(times);
    for (const entry of row!.attemptLog) expect(entry.durationMs).toBeGreaterThanOrEqual(0);

    // The same envelope, byte for byte, on every try; its id is the event id of the log row.
    expect(hooks.requests).toHaveLength(3);
    const ids = hooks.requests.map((request) => request.headers['x-webhook-id']);
    expect(new Set(ids)).toStrictEqual(new Set([row!.eventId]));
    expect(new Set(hooks.requests.map((request) => request.raw)).size).toBe(1);
    expect(hooks.requests[0]!.body).toMatchObject({ id: row!.eventId, event: 'candidateCreated', data: { candidate: { id: candidateId, email } } });
    // Retry delays: at least 1 × and 5 × WEBHOOK_BACKOFF_MS (50 ms).
    const [t0, t1, t2] = hooks.requests.map((request) => request.receivedAt) as [number, number, number];
    expect(t1 - t0).toBeGreaterThanOrEqual(45);
    expect(t2 - t1).toBeGreaterThanOrEqual(245);
    // Nothing more after a success.
    await sleep(400);
    expect(hooks.requests).toHaveLength(3);
  });

  it('disables an address that answers 410, logs later events as endpoint_disabled, and re-enables it when saved again', async () => {
    const hooks = await receiver(() => ({ status: 410 }));
    const { ws, signUp } = await setup(hooks.url);
    await signUp();
    await hooks.waitFor((requests) => requests.length >= 1, 10_000, 'the 410 attempt');
    const [gone] = await deliveriesUntil(ws.id, (rows) => rows[0]?.status === 'failed', 'delivery failed after 410');
    expect(gone).toMatchObject({ status: 'failed', attempts: 1, attemptLog: [attempt(410, 'http_410')], lastResponseStatus: 410, lastError: 'http_410' });
    const disabled = await eventually(() => w.webhook(ws.id), (settings) => !settings.enabled, 10_000, 'webhook disabled');
    expect(disabled).toMatchObject({ url: hooks.url, enabled: false, disabledReason: 'gone' });
    // A 410 is final: no retry.
    await sleep(400);
    expect(hooks.requests).toHaveLength(1);

    // Events raised while the address is disabled: logged failed, never sent, not even after re-enabling.
    hooks.respond = () => ({ status: 200 });
    await signUp();
    await signUp();
    const whileDisabled = await deliveriesUntil(ws.id, (rows) => rows.length === 3 && rows.every((row) => row.status !== 'pending'), 'disabled deliveries');
    for (const row of whileDisabled.slice(0, 2)) {
      expect(row).toMatchObject({ event: 'candidateCreated', status: 'failed', attempts: 0, attemptLog: [], lastResponseStatus: null, lastError: 'endpoint_disabled' });
    }
    const saved = w.ok(await w.app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: hooks.url, events: ['candidateCreated'] }), 200).body.data;
    expect(saved).toMatchObject({ url: hooks.url, secret: ws.secret, enabled: true, disabledReason: null });
    expect(await w.webhook(ws.id)).toMatchObject({ enabled: true, disabledReason: null });
    await sleep(500);
    expect(hooks.requests).toHaveLength(1);
    expect((await w.deliveries(ws.id)).slice(0, 2).map((row) => row.status)).toStrictEqual(['failed', 'failed']);

    // Enabled again: new events are delivered.
    await signUp();
    await hooks.waitFor((requests) => requests.length >= 2, 10_000, 'delivery after re-enabling');
    const rows = await deliveriesUntil(ws.id, (list) => list[0]?.status === 'succeeded', 'delivery after re-enabling');
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatchObject({ attempts: 1, lastResponseStatus: 200, lastError: null });
    expect(hooks.requests[1]!.headers['x-webhook-id']).toBe(rows[0]!.eventId);

    // Any delivery can be resent, also one that was never sent because the address was disabled.
    const never = rows[1] as Delivery;
    const resent = w.ok(await w.app.call('POST', `/internal/webhook-deliveries/${never.id}/resend`), 202).body.data;
    await hooks.waitFor((requests) => requests.length >= 3, 10_000, 'resent disabled delivery');
    expect(hooks.requests[2]!.headers['x-webhook-id']).toBe(never.eventId);
    const after = await deliveriesUntil(ws.id, (list) => list.find((row) => row.id === resent.id)?.status === 'succeeded', 'resend succeeded');
    expect(after.find((row) => row.id === never.id)).toMatchObject({ status: 'failed', attempts: 0, lastError: 'endpoint_disabled' });
  });

  it('resends a delivery as a new row with the same event and envelope id', async () => {
    const hooks = await receiver();
    const { ws, signUp } = await setup(hooks.url);
    await signUp();
    await hooks.waitFor((requests) => requests.length >= 1, 10_000, 'first delivery');
    const [original] = await deliveriesUntil(ws.id, (rows) => rows[0]?.status === 'succeeded', 'first delivery succeeded');

    const answer = await w.app.call('POST', `/internal/webhook-deliveries/${original!.id}/resend`);
    expect(answer.status).toBe(202);
    expect(answer.body).toStrictEqual({ data: { id: expect.any(String) } });
    const newId: string = answer.body.data.id;
    expect(newId).not.toBe(original!.id);

    await hooks.waitFor((requests) => requests.length >= 2, 10_000, 'resent delivery');
    const rows = await deliveriesUntil(ws.id, (list) => list.length === 2 && list.every((row) => row.status === 'succeeded'), 'resend succeeded');
    // Newest first: the resend on top, the original unchanged below it.
    expect(rows.map((row) => row.id)).toStrictEqual([newId, original!.id]);
    expect(rows[0]).toMatchObject({ eventId: original!.eventId, event: original!.event, url: hooks.url, attempts: 1, attemptLog: [attempt(200, null)] });
    expect(rows[1]).toStrictEqual(original);
    const [first, second] = hooks.requests;
    expect(second!.headers['x-webhook-id']).toBe(first!.headers['x-webhook-id']);
    expect(second!.body.id).toBe(original!.eventId);
    expect(second!.raw).toBe(first!.raw);

    // Each resend is a new delivery.
    const again = w.ok(await w.app.call('POST', `/internal/webhook-deliveries/${original!.id}/resend`), 202).body.data.id;
    expect([newId, original!.id]).not.toContain(again);
    await hooks.waitFor((requests) => requests.length >= 3, 10_000, 'second resend');

    const unknown = await w.app.call('POST', '/internal/webhook-deliveries/whd_doesnotexist/resend');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('logs connection_failed when nothing listens, and keeps retrying until the address answers', async () => {
    const port = await freeLoopbackPort();
    const url = `http://127.0.0.1:${port}/hooks`;
    const { ws, signUp } = await setup(url);
    await signUp();
    const failing = await deliveriesUntil(ws.id, (rows) => (rows[0]?.attempts ?? 0) >= 2, 'two failed attempts');
    expect(failing[0]).toMatchObject({ status: 'pending', lastResponseStatus: null, lastError: 'connection_failed' });
    for (const entry of failing[0]!.attemptLog) expect(entry).toStrictEqual(attempt(null, 'connection_failed'));

    // The address comes up: a later retry (250 ms after the second, then 1.5 s) gets through.
    const hooks = await receiver(undefined, port);
    await hooks.waitFor((requests) => requests.length >= 1, 15_000, 'delivery once listening');
    const [row] = await deliveriesUntil(ws.id, (rows) => rows[0]?.status === 'succeeded', 'succeeded after connection failures');
    expect(row!.attempts).toBeGreaterThanOrEqual(3);
    expect(row!.attemptLog.at(-1)).toStrictEqual(attempt(200, null));
    expect(row!.attemptLog.slice(0, -1).every((entry) => entry.error === 'connection_failed')).toBe(true);
    expect(hooks.requests[0]!.headers['x-webhook-id']).toBe(row!.eventId);
  });

  it('counts an answer later than 10 seconds as a timeout', async () => {
    const hooks = await receiver((_request, index) => (index === 0 ? { status: 200, delayMs: 14_000 } : { status: 200 }));
    const { ws, signUp } = await setup(hooks.url);
    await signUp();
    await hooks.waitFor((requests) => requests.length >= 2, 25_000, 'retry after the timeout');
    const [row] = await deliveriesUntil(ws.id, (rows) => rows[0]?.status === 'succeeded', 'succeeded after the timeout');
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2, lastError: null, lastResponseStatus: 200 });
    expect(row!.attemptLog).toStrictEqual([attempt(null, 'timeout'), attempt(200, null)]);
    expect(row!.attemptLog[0]!.durationMs).toBeGreaterThanOrEqual(9_900);
    expect(row!.attemptLog[0]!.durationMs).toBeLessThan(12_500);
    expect(hooks.requests[1]!.headers['x-webhook-id']).toBe(hooks.requests[0]!.headers['x-webhook-id']);
  });

  it('refuses http:// and non-public hosts unless WEBHOOK_ALLOW_INSECURE=true', async () => {
    const app = world(strict);
    const ws = await app.workspace();
    const refused = [
      'http://hooks.example.com/in', 'https://127.0.0.1/', 'https://localhost/', 'https://10.0.0.1/', 'https://[::1]/',
      'https://LOCALHOST./', 'https://api.localhost/', 'https://127.1/', 'https://2130706433/', 'https://0.0.0.0/', 'https://[::]/',
      'https://169.254.169.254/latest/meta-data', 'https://192.168.1.10/', 'https://172.16.0.1/', 'https://100.64.0.1/',
      'https://[::ffff:127.0.0.1]/', 'https://[::ffff:10.0.0.1]/', 'https://[fc00::1]/', 'https://[fe80::1]/',
      'https://intranet/', 'ftp://hooks.example.com/', 'hooks.example.com/in', '/hooks', 'https://user:pass@hooks.example.com/', 42, null,
    ];
    for (const url of refused) {
      const answer = await app.app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url, events: ['candidateCreated'] });
      expect({ url, status: answer.status, code: answer.body?.error?.code }).toStrictEqual({ url, status: 422, code: 'validation_failed' });
    }
    expect((await app.app.call('GET', `/internal/workspaces/${ws.id}/webhook`)).status).toBe(404);
    const accepted = app.ok(await app.app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: 'https://hooks.example.com/in', events: ['candidateCreated'] }), 200);
    expect(accepted.body.data).toStrictEqual({ url: 'https://hooks.example.com/in', events: ['candidateCreated'], secret: expect.any(String), enabled: true, disabledReason: null });

    // With WEBHOOK_ALLOW_INSECURE=true: http:// and loopback are allowed, other schemes still are not.
    const insecure = await w.workspace();
    expect((await w.app.call('PUT', `/internal/workspaces/${insecure.id}/webhook`, { url: 'http://127.0.0.1:9/x', events: ['candidateCreated'] })).status).toBe(200);
    expect((await w.app.call('PUT', `/internal/workspaces/${insecure.id}/webhook`, { url: 'ftp://127.0.0.1/x', events: ['candidateCreated'] })).status).toBe(422);
  });

  // Moves the simulated clock: keep it last.
  it('disables an address that keeps failing for 5 days (reason failing)', async () => {
    const port = await freeLoopbackPort();
    const { ws, signUp } = await setup(`http://127.0.0.1:${port}/hooks`);
    await signUp();
    // Attempts at 0, +50 ms, +300 ms, then +1.8 s: move the domain clock 5 days before the fourth.
    await deliveriesUntil(ws.id, (rows) => (rows[0]?.attempts ?? 0) >= 3, 'three failed attempts');
    w.ok(await w.app.call('POST', '/internal/clock', { advanceSeconds: 5 * 24 * 3600 }), 200);
    const settings = await eventually(() => w.webhook(ws.id), (value) => !value.enabled, 15_000, 'webhook disabled as failing');
    expect(settings).toMatchObject({ enabled: false, disabledReason: 'failing' });
    const [row] = await deliveriesUntil(ws.id, (rows) => rows[0]?.status === 'failed', 'delivery ended');
    // Normally the fourth attempt; a later one if this machine was too slow to move the clock in between.
    expect(row!.attempts).toBeGreaterThanOrEqual(4);
    expect(row!.attemptLog).toHaveLength(row!.attempts);
    expect(row!.attemptLog.every((entry) => entry.error === 'connection_failed')).toBe(true);
    expect(Date.parse(row!.attemptLog.at(-1)!.at) - Date.parse(row!.attemptLog[0]!.at)).toBeGreaterThanOrEqual(5 * 24 * 3600_000);
    expect(Date.parse(row!.attemptLog.at(-2)!.at) - Date.parse(row!.attemptLog[0]!.at)).toBeLessThan(5 * 24 * 3600_000);

    // Later events: endpoint_disabled, 0 attempts.
    await signUp();
    const rows = await deliveriesUntil(ws.id, (list) => list.length === 2 && list[0]!.status === 'failed', 'disabled delivery');
    expect(rows[0]).toMatchObject({ status: 'failed', attempts: 0, lastError: 'endpoint_disabled' });
  });
});
