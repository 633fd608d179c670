import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { WEBHOOK_EVENT_NAMES } from '#domain';
import type { PostgresEventStore } from '#event-store';
import { hashTagged } from '#platform';
import { startMessaging, type Messaging } from '../dispatch/start-messaging.js';
import { TestClock, waitFor } from '../test-support/clock.js';
import { openEventStore } from '../test-support/event-store.js';
import { startHttpReceiver, type HttpReceiver } from '../test-support/http-receiver.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { connectRedis, deleteKeys, uniquePrefix } from '../test-support/redis.js';
import { startSmtpServer, type TestSmtpServer } from '../test-support/smtp.js';
import { envelopeFor } from '../test-support/webhook-harness.js';
import { DeliveryLog } from '../webhooks/delivery-log.js';
import type { WebhookSettings } from '../webhooks/webhook-settings.js';
import { migrateMessagingTables } from './messaging.migrations.js';
import { EMAIL_QUEUE, type EmailJob, WEBHOOK_QUEUE, type WebhookJob, emailJobId, keepJobs, retryJobOptions, webhookJobId } from './queues.js';

/*
 * An upgrade from a release before hash-tagged prefixes: its jobs wait under the untagged prefix
 * (waiting, delayed, and one a killed worker held), its delivery rows are pending. The new release
 * runs on `{prefix}` and must deliver each of them once: not lose them, and not add them again
 * beside the old ones (its sweeper finds pending rows without a job under the new prefix).
 */
describe('jobs left under the untagged prefix of an earlier release', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let redis: Redis;
  let receiver: HttpReceiver;
  let smtp: TestSmtpServer;
  let messaging: Messaging | null = null;
  const legacyPrefix = uniquePrefix('legacy');
  const prefix = hashTagged(legacyPrefix);
  const workspaceId = `ws_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    db = await createTestDatabase('legacy_queues');
    store = await openEventStore(db);
    redis = connectRedis();
    receiver = await startHttpReceiver(() => ({ status: 200 }));
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await messaging?.stop();
    await store.close();
    await receiver.close();
    await smtp.close();
    await deleteKeys(redis, legacyPrefix);
    await deleteKeys(redis, prefix);
    await redis.quit();
    await db.drop();
  });

  it('delivers the old jobs once each, adds none of them again, then stops looking at the old prefix', async () => {
    await migrateMessagingTables(db.pool, db.schema);
    const log = new DeliveryLog(db.pool, db.schema);
    const deliveryIds: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const envelope = envelopeFor(workspaceId);
      const { delivery } = await log.insertIfAbsent({
        id: `dlv_${randomUUID()}`, workspaceId, eventId: envelope.id, event: envelope.event, url: receiver.url,
        body: JSON.stringify(envelope), sandbox: false, createdAt: '2026-11-02T09:00:00.000Z',
      });
      deliveryIds.push(delivery.id);
    }
    const [waiting, delayed, stalled] = deliveryIds as [string, string, string];

    // What the earlier release left: a waiting and a delayed webhook job, an e-mail, and a job its killed worker held.
    const oldConnection = connectRedis();
    const oldWebhooks = new Queue<WebhookJob>(WEBHOOK_QUEUE, { connection: oldConnection, prefix: legacyPrefix });
    const oldEmails = new Queue<EmailJob>(EMAIL_QUEUE, { connection: oldConnection, prefix: legacyPrefix });
    const add = (deliveryId: string, delay = 0) =>
      oldWebhooks.add(WEBHOOK_QUEUE, { deliveryId }, { jobId: webhookJobId(deliveryId), delay, ...retryJobOptions, ...keepJobs });
    await add(stalled);
    const killedConnection = connectRedis();
    const killed = new Worker<WebhookJob>(WEBHOOK_QUEUE, null, { connection: killedConnection, prefix: legacyPrefix, lockDuration: 1000 });
    const held = await killed.getNextJob('killed-worker-token');
    expect(held?.id).toBe(webhookJobId(stalled));
    await killed.close(true);
    // Its process is gone: the connection with it (while it stays, the drain waits for that old worker).
    killedConnection.disconnect();
    await add(waiting);
    await add(delayed, 1500);
    const email: EmailJob = {
      eventId: randomUUID(), to: 'ada@example.com', firstName: 'Ada', assessmentName: 'Backend', deadline: null, invitationUrl: 'http://localhost/i/1',
    };
    await oldEmails.add(EMAIL_QUEUE, email, { jobId: emailJobId(email.eventId), ...retryJobOptions, ...keepJobs });
    expect(await oldWebhooks.getJobCounts('active', 'waiting', 'delayed')).toStrictEqual({ active: 1, waiting: 1, delayed: 1 });

    const settings: WebhookSettings = { url: receiver.url, events: [...WEBHOOK_EVENT_NAMES], enabled: true, secrets: ['whsec_legacy'] };
    messaging = await startMessaging({
      eventStore: store, pool: db.pool, schema: db.schema, redis, prefix, legacyPrefix, clock: new TestClock('2026-11-02T10:00:00.000Z'),
      appUrl: 'http://localhost:3100', smtpUrl: smtp.url, backoffMs: 20, allowInsecure: true, logger: pino({ level: 'silent' }),
      getSigningSecrets: async (id) => (id === workspaceId ? settings : null), disableWebhook: async () => undefined,
      feedWindow: async function* () { /* empty */ },
    });
    // The sweep that runs at start would have queued all three pending deliveries again under the new prefix.
    await waitFor(async () => (await messaging?.queues.maintenance.getJobSchedulers())?.length === 1, 10_000, 'the first repair (purge scheduled, then the sweep)');

    await waitFor(async () => {
      const listed = await log.listDeliveries(workspaceId);
      return listed.length === 3 && listed.every(({ status }) => status === 'succeeded');
    }, 30_000, 'the three old deliveries to succeed');
    await waitFor(async () => smtp.messages.length === 1, 10_000, 'the old e-mail');
    // A second run of any of them (a job added again beside the old one) would arrive within this.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const delivered = receiver.requests.map((request) => String(request.headers['x-webhook-id']));
    const eventIds = await Promise.all(deliveryIds.map(async (id) => (await log.get(id))?.eventId));
    expect(delivered.sort()).toStrictEqual([...eventIds].sort());
    expect(smtp.messages).toHaveLength(1);
    for (const id of deliveryIds) expect(await messaging.queues.webhooks.getJob(webhookJobId(id))).toBeUndefined();

    // Drained: no worker of this process is attached to the old queues any more.
    await waitFor(async () => (await oldWebhooks.getWorkersCount()) + (await oldEmails.getWorkersCount()) === 0, 15_000, 'the drain to end');
    expect(await oldWebhooks.getJobCounts('active', 'waiting', 'delayed', 'prioritized')).toStrictEqual({ active: 0, waiting: 0, delayed: 0, prioritized: 0 });
    await oldWebhooks.close();
    await oldEmails.close();
    await oldConnection.quit();
  }, 60_000);
});
