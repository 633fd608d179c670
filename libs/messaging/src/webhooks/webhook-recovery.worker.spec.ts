import { pino } from 'pino';
import { startHttpReceiver, type HttpReceiver, type Responder } from '../test-support/http-receiver.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { createWebhookHarness, envelopeFor, type WebhookHarness } from '../test-support/webhook-harness.js';
import { waitFor } from '../test-support/clock.js';
import { webhookJobId } from '../shared/queues.js';
import { DeliveryLog } from './delivery-log.js';
import { DeliverySweeper } from './delivery-sweeper.js';
import type { WebhookEnvelope } from './envelopes.js';
import { RecoveryLog } from './recovery-log.js';
import { verifyWebhookSignature } from './signing.js';
import type { FeedWindow } from './webhook-recovery.js';
import { migrateMessagingTables } from '../shared/messaging.migrations.js';

const WINDOW = { since: '2026-11-01T00:00:00.000Z', until: '2026-11-03T00:00:00.000Z' };

/** Envelopes one minute apart from 09:00 on 2 November, in the log's order. */
const envelopes = (workspaceId: string, count: number): WebhookEnvelope[] =>
  Array.from({ length: count }, (_unused, index) => envelopeFor(workspaceId, new Date(Date.UTC(2026, 10, 2, 9, index)).toISOString()));

/** The feed's rows of a window as the read model lists them (served JSON, here without links). */
const feedOf = (listed: readonly WebhookEnvelope[]): FeedWindow => async function* ({ types, since, until }) {
  for (const [index, envelope] of listed.entries()) {
    if (types.includes(envelope.event) && envelope.createdAt >= since && envelope.createdAt <= until) {
      yield { seq: String(index).padStart(20, '0'), json: JSON.stringify(envelope) };
    }
  }
};

describe('webhook recovery: one delivery after another, on the normal worker (real PostgreSQL, Redis, receiver)', () => {
  let db: TestDatabase;
  let log: DeliveryLog;
  let recoveryLog: RecoveryLog;
  let receiver: HttpReceiver | null = null;
  let harness: WebhookHarness | null = null;
  /** When each request came in and when its answer was sent (the responder's delay). */
  let timeline: { id: string; receivedAt: number; answeredAt: number }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('webhook_recovery');
    log = new DeliveryLog(db.pool, db.schema);
    recoveryLog = new RecoveryLog(db.pool, db.schema);
    await migrateMessagingTables(db.pool, db.schema);
  });
  afterEach(async () => {
    await harness?.close();
    await receiver?.close();
    harness = null;
    receiver = null;
    timeline = [];
  });
  afterAll(async () => db.drop());

  const start = async (respond: Responder, listed: (workspaceId: string) => WebhookEnvelope[], backoffMs = 20) => {
    let feed: WebhookEnvelope[] = [];
    receiver = await startHttpReceiver((request, index) => {
      const answer = respond(request, index);
      const receivedAt = Date.now();
      timeline.push({ id: String(request.headers['x-webhook-id']), receivedAt, answeredAt: receivedAt + (answer.delayMs ?? 0) });
      return answer;
    });
    harness = await createWebhookHarness({ log, url: receiver.url, backoffMs, recoveryLog, feedWindow: (query) => feedOf(feed)(query) });
    feed = listed(harness.workspaceId);
    const { recoveries } = harness;
    if (!recoveries) throw new Error('the harness has no recoveries');
    return { receiver, harness, recoveries, feed };
  };

  const rowsOf = async (workspaceId: string) => (await log.listDeliveries(workspaceId)).reverse();

  it('delivers the window in the log\'s order, one at a time, at a worker concurrency of 100', async () => {
    const { receiver, harness, recoveries, feed } = await start(() => ({ status: 200, delayMs: Math.floor(Math.random() * 8) }), (id) => envelopes(id, 40));
    await harness.startWorker();

    expect(await recoveries.recover(harness.workspaceId, WINDOW)).toStrictEqual({ count: 40, addressDisabled: false });
    const requests = await receiver.waitForRequests(40, 20_000);

    expect(requests.map((request) => request.headers['x-webhook-id'])).toStrictEqual(feed.map((envelope) => envelope.id));
    expect(requests.map((request) => request.body)).toStrictEqual(feed.map((envelope) => JSON.stringify(envelope)));
    for (const request of requests) expect(verifyWebhookSignature(String(request.headers['x-webhook-signature']), request.body, 'whsec_current', 60)).toBe(true);
    // Never two at once: each request came after the answer to the one before it.
    timeline.slice(1).forEach((request, index) => expect(request.receivedAt).toBeGreaterThanOrEqual(timeline[index]?.answeredAt ?? Infinity));
    const rows = await waitFor(async () => {
      const listed = await rowsOf(harness.workspaceId);
      return listed.length === 40 && listed.every((row) => row.status === 'succeeded') ? listed : null;
    }, 10_000, 'every recovered delivery succeeded');
    expect(rows.map((row) => row.eventId)).toStrictEqual(feed.map((envelope) => envelope.id));
    expect(rows.map((row) => row.attempts)).toStrictEqual(feed.map(() => 1));
  }, 30_000);

  it('lets a refused delivery go on with its own retries while the rest keep their order', async () => {
    const refusedOnce = new Set<string>();
    const { receiver, harness, recoveries, feed } = await start((request) => {
      const id = String(request.headers['x-webhook-id']);
      if (id !== refused || refusedOnce.has(id)) return { status: 200 };
      refusedOnce.add(id);
      return { status: 503 };
    }, (id) => envelopes(id, 8), 1_000);
    const refused = feed[2]?.id ?? '';
    await harness.startWorker();

    expect((await recoveries.recover(harness.workspaceId, WINDOW))?.count).toBe(8);
    const requests = await receiver.waitForRequests(9, 15_000);
    const ids = requests.map((request) => request.headers['x-webhook-id']);
    // The first attempts in the log's order; the refused one again after its retry delay, behind the others.
    expect(ids).toStrictEqual([...feed.map((envelope) => envelope.id), refused]);
    const rows = await waitFor(async () => {
      const listed = await rowsOf(harness.workspaceId);
      return listed.every((row) => row.status === 'succeeded') ? listed : null;
    }, 10_000, 'every recovered delivery succeeded');
    expect(rows.find((row) => row.eventId === refused)?.attemptLog.map((attempt) => attempt.responseStatus)).toStrictEqual([503, 200]);
  }, 30_000);

  it('after Redis lost its queue, a sweep restarts the sequence at its head, not all of it at once', async () => {
    const { receiver, harness, recoveries, feed } = await start(() => ({ status: 200 }), (id) => envelopes(id, 6));
    // Recorded with no worker running; then Redis loses every job.
    expect((await recoveries.recover(harness.workspaceId, WINDOW))?.count).toBe(6);
    await harness.queue.obliterate({ force: true });
    const sweeper = new DeliverySweeper({ log, queue: harness.queue, clock: harness.clock, backoffMs: 20, logger: pino({ level: 'silent' }) });

    expect(await sweeper.sweep()).toBe(1);
    const rows = await rowsOf(harness.workspaceId);
    const head = await harness.queue.getJob(webhookJobId(rows[0]?.id ?? ''));
    expect(head?.data).toMatchObject({ deliveryId: rows[0]?.id, recoveryId: expect.stringMatching(/^whr_/) });
    expect(await sweeper.sweep()).toBe(0);

    await harness.startWorker();
    const requests = await receiver.waitForRequests(6, 15_000);
    expect(requests.map((request) => request.headers['x-webhook-id'])).toStrictEqual(feed.map((envelope) => envelope.id));
  }, 30_000);

  it('recovers only the window and the events the settings select now', async () => {
    const { receiver, harness, recoveries, feed } = await start(() => ({ status: 200 }), (id) => envelopes(id, 6));
    harness.settings.events = ['candidateInvited'];
    expect(await recoveries.recover(harness.workspaceId, WINDOW)).toStrictEqual({ count: 0, addressDisabled: false });
    harness.settings.events = ['candidateCreated'];
    const inner = { since: feed[1]?.createdAt ?? '', until: feed[3]?.createdAt ?? '' };
    await harness.startWorker();

    expect((await recoveries.recover(harness.workspaceId, inner))?.count).toBe(3);
    const requests = await receiver.waitForRequests(3);
    expect(requests.map((request) => request.headers['x-webhook-id'])).toStrictEqual(feed.slice(1, 4).map((envelope) => envelope.id));
    expect(await recoveries.recover('ws_unknown', WINDOW)).toBeNull();
  });

  it('logs every row failed (endpoint_disabled) and sends nothing while the address is disabled', async () => {
    const { receiver, harness, recoveries } = await start(() => ({ status: 200 }), (id) => envelopes(id, 3));
    harness.settings.enabled = false;
    await harness.startWorker();

    expect(await recoveries.recover(harness.workspaceId, WINDOW)).toStrictEqual({ count: 3, addressDisabled: true });
    const rows = await rowsOf(harness.workspaceId);
    expect(rows.map(({ status, attempts, lastError }) => ({ status, attempts, lastError }))).toStrictEqual(
      rows.map(() => ({ status: 'failed', attempts: 0, lastError: 'endpoint_disabled' })),
    );
    expect(await harness.queue.getJobCounts('waiting', 'delayed', 'active')).toStrictEqual({ waiting: 0, delayed: 0, active: 0 });
    expect(receiver.requests).toHaveLength(0);
  });
});
