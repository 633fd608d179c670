import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { WEBHOOK_EVENT_NAMES } from '#domain';
import type { PostgresEventStore } from '#event-store';
import { TestClock, waitFor } from '../test-support/clock.js';
import { candidateStory, TESTS } from '../test-support/domain-events.js';
import { appendEvents, openEventStore } from '../test-support/event-store.js';
import { startHttpReceiver, type HttpReceiver } from '../test-support/http-receiver.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { connectRedis, deleteKeys, uniquePrefix } from '../test-support/redis.js';
import { startSmtpServer, type TestSmtpServer } from '../test-support/smtp.js';
import { verifyWebhookSignature } from '../webhooks/signing.js';
import type { WebhookSettings } from '../webhooks/webhook-settings.js';
import { startMessaging, type Messaging } from './start-messaging.js';

const DAY_MS = 24 * 3600 * 1000;
const time = (minute: number): string => new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString();

describe('startMessaging', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let redis: Redis;
  let receiver: HttpReceiver;
  let smtp: TestSmtpServer;
  let messaging: Messaging;
  const prefix = uniquePrefix('messaging');
  const clock = new TestClock('2026-11-02T10:00:00.000Z');
  const settings = new Map<string, WebhookSettings>();

  beforeAll(async () => {
    db = await createTestDatabase('start_messaging');
    store = await openEventStore(db);
    redis = connectRedis();
    receiver = await startHttpReceiver(() => ({ status: 200 }));
    smtp = await startSmtpServer();
    messaging = await startMessaging({
      eventStore: store, pool: db.pool, schema: db.schema, redis, prefix, clock, appUrl: 'http://localhost:3100', smtpUrl: smtp.url,
      backoffMs: 20, allowInsecure: true, logger: pino({ level: 'silent' }), purgeEveryMs: 300,
      getSigningSecrets: async (workspaceId) => settings.get(workspaceId) ?? null,
      disableWebhook: async () => undefined,
      // No events feed here: webhook-recovery.worker.spec.ts recovers windows.
      feedWindow: async function* () { /* empty */ },
    });
  });
  afterAll(async () => {
    await messaging.stop();
    await store.close();
    await receiver.close();
    await smtp.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
    await db.drop();
  });

  it('delivers every selected event signed, sends the invitation e-mail, resends, and reports queue health', async () => {
    const story = candidateStory({ workspaceId: 'ws_e2e', mode: 'live' });
    settings.set('ws_e2e', { url: receiver.url, events: [...WEBHOOK_EVENT_NAMES], enabled: true, secrets: ['whsec_e2e'] });
    const e = story.events;
    await appendEvents(store, `assessment-${story.assessmentId}`, [[e.invited(time(0), 'tok_e2e'), time(0)]]);
    await appendEvents(store, `candidate-${story.candidateId}`, [
      [e.created(time(1)), time(1)], [e.registered(time(1)), time(1)], [e.started(time(2)), time(2)],
      [e.testCompleted(time(3), TESTS[0] ?? { slug: 'x', name: 'x', type: 'library' }, 'res_1'), time(3)],
    ]);

    const requests = await receiver.waitForRequests(4);
    expect(requests.map((request) => JSON.parse(request.body).event).sort()).toStrictEqual(['assessmentStarted', 'candidateCreated', 'candidateInvited', 'testCompleted']);
    for (const request of requests) expect(verifyWebhookSignature(String(request.headers['x-webhook-signature']), request.body, 'whsec_e2e', 60)).toBe(true);
    const deliveries = await waitFor(async () => {
      const listed = await messaging.listDeliveries('ws_e2e');
      return listed.length === 4 && listed.every(({ status }) => status === 'succeeded') ? listed : null;
    }, 10_000, 'four succeeded deliveries');

    const [email] = await waitFor(async () => { const listed = await messaging.listEmails(story.candidate.email); return listed.length ? listed : null; }, 10_000, 'the e-mail');
    expect(email?.text).toContain(`http://localhost:3100/invitations/${story.assessmentId}/tok_e2e`);
    await waitFor(async () => smtp.messages.length === 1, 10_000, 'the SMTP message');

    const invited = deliveries.find(({ event }) => event === 'candidateInvited');
    if (!invited) throw new Error('no candidateInvited delivery');
    const resentId = await messaging.resend(invited.id);
    await receiver.waitForRequests(5);
    expect(receiver.requests[4]?.headers['x-webhook-id']).toBe(invited.eventId);
    expect(resentId).not.toBe(invited.id);

    const health = await messaging.queueHealth();
    expect(Object.keys(health).sort()).toStrictEqual(['email', 'messaging-maintenance', 'webhooks']);
    expect(health.webhooks).toStrictEqual({ waiting: expect.any(Number), active: expect.any(Number), delayed: expect.any(Number), failed: 0 });
  });

  it('purges deliveries older than 30 days of domain time on its schedule', async () => {
    expect(await messaging.listDeliveries('ws_e2e')).toHaveLength(5);
    clock.advance(31 * DAY_MS);
    await waitFor(async () => (await messaging.listDeliveries('ws_e2e')).length === 0, 10_000, 'the purge');
  });
});
