import { jest } from '@jest/globals';
import { startHttpReceiver, type HttpReceiver, type Responder } from '../test-support/http-receiver.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { createWebhookHarness, envelopeFor, type WebhookHarness } from '../test-support/webhook-harness.js';
import { waitFor } from '../test-support/clock.js';
import { DeliveryLog } from './delivery-log.js';
import { verifyWebhookSignature } from './signing.js';
import { migrateMessagingTables } from '../shared/messaging.migrations.js';

const DAY_MS = 24 * 3600 * 1000;

describe('webhook delivery worker', () => {
  let db: TestDatabase;
  let log: DeliveryLog;
  let receiver: HttpReceiver | null = null;
  let harness: WebhookHarness | null = null;

  beforeAll(async () => {
    db = await createTestDatabase('webhook_worker');
    log = new DeliveryLog(db.pool, db.schema);
    await migrateMessagingTables(db.pool, db.schema);
  });
  afterEach(async () => {
    await harness?.close();
    await receiver?.close();
    harness = null;
    receiver = null;
  });
  afterAll(async () => db.drop());

  const start = async (respond: Responder, options: { backoffMs?: number; timeoutMs?: number; secrets?: string[]; allowInsecure?: boolean } = {}) => {
    receiver = await startHttpReceiver(respond);
    harness = await createWebhookHarness({ log, url: receiver.url, backoffMs: options.backoffMs ?? 20, ...options });
    return { receiver, harness };
  };

  it('POSTs the envelope signed with both secrets after a rotation, and logs the attempt', async () => {
    const { receiver, harness } = await start(() => ({ status: 204 }), { secrets: ['whsec_new', 'whsec_old'] });
    await harness.startWorker();
    const envelope = envelopeFor(harness.workspaceId);
    const delivery = await harness.deliveries.deliverEvent(envelope, harness.settings);
    const done = await harness.waitForStatus(delivery.id, 'succeeded');

    const [request] = await receiver.waitForRequests(1);
    if (!request) throw new Error('no request');
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-webhook-id']).toBe(envelope.id);
    expect(JSON.parse(request.body)).toStrictEqual(envelope);
    const signature = String(request.headers['x-webhook-signature']);
    expect(signature.startsWith(`t=${String(request.headers['x-webhook-timestamp'])},v1=`)).toBe(true);
    expect(Math.abs(Number(request.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(verifyWebhookSignature(signature, request.body, 'whsec_new', 300)).toBe(true);
    expect(verifyWebhookSignature(signature, request.body, 'whsec_old', 300)).toBe(true);
    expect(done).toMatchObject({ attempts: 1, lastResponseStatus: 204, lastError: null, eventId: envelope.id, url: receiver.url });
    expect(done.attemptLog).toStrictEqual([{ at: await harness.clock.now(), responseStatus: 204, durationMs: expect.any(Number), error: null }]);
  });

  it('runs many deliveries at once: each sent until it succeeds, every attempt logged in order, statements shared', async () => {
    const count = 150;
    const seen = new Map<string, number>();
    const refusedOnce = new Set<string>();
    // Every third event is refused once, the others accepted at once.
    const { receiver, harness } = await start((request) => {
      const id = String(request.headers['x-webhook-id']);
      const tries = (seen.get(id) ?? 0) + 1;
      seen.set(id, tries);
      return { status: tries === 1 && refusedOnce.has(id) ? 500 : 200 };
    }, { backoffMs: 5 });
    const envelopes = Array.from({ length: count }, () => envelopeFor(harness.workspaceId));
    envelopes.forEach(({ id }, index) => { if (index % 3 === 0) refusedOnce.add(id); });
    const deliveries = await Promise.all(envelopes.map((envelope) => harness.deliveries.deliverEvent(envelope, harness.settings)));
    const query = jest.spyOn(db.pool, 'query');
    await harness.startWorker();
    const done = await Promise.all(deliveries.map((delivery) => harness.waitForStatus(delivery.id, 'succeeded', 20_000)));
    const statements = query.mock.calls.length;
    query.mockRestore();

    done.forEach((delivery, index) => {
      const refused = index % 3 === 0;
      expect(delivery.attemptLog.map(({ responseStatus, error }) => ({ responseStatus, error }))).toStrictEqual(
        refused ? [{ responseStatus: 500, error: 'http_500' }, { responseStatus: 200, error: null }] : [{ responseStatus: 200, error: null }],
      );
      expect(delivery.attempts).toBe(refused ? 2 : 1);
      expect(seen.get(envelopes[index]?.id ?? '')).toBe(refused ? 2 : 1);
    });
    expect(receiver.requests).toHaveLength(count + count / 3);
    // One read and one attempt write per attempt, one address-health read per failed attempt, and the
    // waits' reads: all shared with concurrent callers, far fewer than one statement each.
    const attempts = count + count / 3;
    expect(statements).toBeLessThan(attempts);
  }, 30_000);

  it('retries after 500s on the schedule and logs every attempt', async () => {
    const { receiver, harness } = await start((_request, index) => ({ status: index < 2 ? 500 : 200 }));
    await harness.startWorker();
    const delivery = await harness.deliveries.deliverEvent(envelopeFor(harness.workspaceId), harness.settings);
    const done = await harness.waitForStatus(delivery.id, 'succeeded');
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((request) => request.headers['x-webhook-id']))).toStrictEqual(new Set([delivery.eventId]));
    expect(done.attempts).toBe(3);
    expect(done.attemptLog.map(({ responseStatus, error }) => ({ responseStatus, error }))).toStrictEqual([
      { responseStatus: 500, error: 'http_500' }, { responseStatus: 500, error: 'http_500' }, { responseStatus: 200, error: null },
    ]);
  });

  it('gives up after 9 attempts, waiting 1, 5, 30, 120, 300, 600, 1200 and 1440 units in between', async () => {
    const seenAt: number[] = [];
    const { receiver, harness } = await start(() => { seenAt.push(Date.now()); return { status: 503 }; }, { backoffMs: 1 });
    await harness.startWorker();
    const delivery = await harness.deliveries.deliverEvent(envelopeFor(harness.workspaceId), harness.settings);
    const done = await harness.waitForStatus(delivery.id, 'failed', 15_000);
    expect(done).toMatchObject({ attempts: 9, lastResponseStatus: 503, lastError: 'http_503' });
    expect(receiver.requests).toHaveLength(9);
    const gaps = seenAt.slice(1).map((time, index) => time - (seenAt[index] ?? time));
    [1, 5, 30, 120, 300, 600, 1200, 1440].forEach((units, index) => expect(gaps[index]).toBeGreaterThanOrEqual(units - 1));
  }, 20_000);

  it('a 410 ends the delivery at once and disables the address', async () => {
    const { receiver, harness } = await start(() => ({ status: 410 }));
    await harness.startWorker();
    const delivery = await harness.deliveries.deliverEvent(envelopeFor(harness.workspaceId), harness.settings);
    const done = await harness.waitForStatus(delivery.id, 'failed');
    expect(done).toMatchObject({ attempts: 1, lastResponseStatus: 410, lastError: 'http_410' });
    expect(harness.disabled).toStrictEqual([{ workspaceId: harness.workspaceId, url: receiver.url, reason: 'gone' }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toHaveLength(1);
  });

  it('an answer slower than the timeout is a timeout attempt', async () => {
    const { harness } = await start((_request, index) => ({ status: 200, delayMs: index === 0 ? 1000 : 0 }), { timeoutMs: 150 });
    await harness.startWorker();
    const delivery = await harness.deliveries.deliverEvent(envelopeFor(harness.workspaceId), harness.settings);
    const done = await harness.waitForStatus(delivery.id, 'succeeded');
    expect(done.attemptLog.map(({ responseStatus, error }) => ({ responseStatus, error }))).toStrictEqual([
      { responseStatus: null, error: 'timeout' }, { responseStatus: 200, error: null },
    ]);
    expect(done.attemptLog[0]?.durationMs).toBeGreaterThanOrEqual(140);
  });

  it('an address failing for 5 days of domain time is disabled as failing', async () => {
    // Each attempt happens a day after the previous one in domain time.
    const { receiver, harness } = await start(() => { harness?.clock.advance(DAY_MS); return { status: 500 }; }, { backoffMs: 1 });
    await harness.startWorker();
    const delivery = await harness.deliveries.deliverEvent(envelopeFor(harness.workspaceId), harness.settings);
    const done = await harness.waitForStatus(delivery.id, 'failed');
    expect(done.attempts).toBe(6);
    expect(done.lastError).toBe('http_500');
    expect(harness.disabled).toStrictEqual([{ workspaceId: harness.workspaceId, url: receiver.url, reason: 'failing' }]);
  });

  it('a disabled address gets failed rows with endpoint_disabled and 0 attempts, and nothing is sent', async () => {
    const { receiver, harness } = await start(() => ({ status: 200 }));
    const queuedBefore = await harness.deliveries.deliverEvent(envelopeFor(harness.workspaceId), harness.settings);
    harness.settings.enabled = false;
    const raisedMeanwhile = await harness.deliveries.deliverEvent(envelopeFor(harness.workspaceId), harness.settings);
    expect(raisedMeanwhile).toMatchObject({ status: 'failed', attempts: 0, lastError: 'endpoint_disabled', attemptLog: [] });
    await harness.startWorker();
    const ended = await harness.waitForStatus(queuedBefore.id, 'failed');
    expect(ended).toMatchObject({ attempts: 0, lastError: 'endpoint_disabled' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('a resend is a new row with the same event and envelope, sent again', async () => {
    const { receiver, harness } = await start(() => ({ status: 200 }));
    await harness.startWorker();
    const envelope = envelopeFor(harness.workspaceId);
    const first = await harness.deliveries.deliverEvent(envelope, harness.settings);
    await harness.waitForStatus(first.id, 'succeeded');
    const resentId = await harness.deliveries.resendDelivery(first.id);
    if (!resentId) throw new Error('resend found no delivery');
    expect(resentId).not.toBe(first.id);
    const resent = await harness.waitForStatus(resentId, 'succeeded');
    expect(resent).toMatchObject({ eventId: first.eventId, envelope, attempts: 1 });
    const requests = await receiver.waitForRequests(2);
    expect(requests[1]?.headers['x-webhook-id']).toBe(envelope.id);
    expect(requests[1]?.body).toBe(requests[0]?.body);
    expect((await log.listDeliveries(harness.workspaceId)).map(({ id }) => id)).toStrictEqual([resentId, first.id]);
    expect(await harness.deliveries.resendDelivery('whd_unknown')).toBeNull();
  });

  it('delivering the same event twice creates one row and sends once', async () => {
    const { receiver, harness } = await start(() => ({ status: 200 }));
    const envelope = envelopeFor(harness.workspaceId);
    const first = await harness.deliveries.deliverEvent(envelope, harness.settings);
    const second = await harness.deliveries.deliverEvent(envelope, harness.settings);
    expect(second.id).toBe(first.id);
    expect(await harness.queue.getJobCountByTypes('waiting', 'delayed', 'active', 'completed')).toBe(1);
    await harness.startWorker();
    await harness.waitForStatus(first.id, 'succeeded');
    await harness.deliveries.deliverEvent(envelope, harness.settings);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toHaveLength(1);
  });

  it('refuses a loopback address unless insecure addresses are allowed: connection_failed, nothing sent', async () => {
    const { receiver, harness } = await start(() => ({ status: 200 }), { allowInsecure: false, backoffMs: 60_000 });
    await harness.startWorker();
    const delivery = await harness.deliveries.deliverEvent(envelopeFor(harness.workspaceId), harness.settings);
    const refused = await waitFor(async () => { const row = await log.get(delivery.id); return row && row.attempts > 0 ? row : null; }, 10_000, 'the first attempt');
    expect(refused).toMatchObject({ status: 'pending', attempts: 1, lastResponseStatus: null, lastError: 'connection_failed' });
    expect(receiver.requests).toHaveLength(0);
  });
});
