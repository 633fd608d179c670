import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { WEBHOOK_EVENT_NAMES, type WebhookEventName } from '#domain';
import { createPostgresEventStore, type PostgresEventStore } from '#event-store';
import { EMAIL_QUEUE, WEBHOOK_QUEUE, type EmailJob, type WebhookJob } from '../shared/queues.js';
import { TestClock } from '../test-support/clock.js';
import { candidateStory, TESTS } from '../test-support/domain-events.js';
import { appendEvents, openEventStore } from '../test-support/event-store.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { connectRedis, deleteKeys, uniquePrefix } from '../test-support/redis.js';
import { EmailOutbox } from '../emails/outbox.js';
import { DeliveryLog } from '../webhooks/delivery-log.js';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.js';
import type { WebhookSettings } from '../webhooks/webhook-settings.js';
import { DispatchCheckpoints } from './dispatch-checkpoints.js';
import { Dispatcher } from './dispatcher.js';
import { migrateMessagingTables } from '../shared/messaging.migrations.js';

const time = (minute: number): string => new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString();

describe('dispatcher', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let redis: Redis;
  let prefix: string;
  let log: DeliveryLog;
  let checkpoints: DispatchCheckpoints;
  let queues: { webhooks: Queue<WebhookJob>; email: Queue<EmailJob> };
  const settingsByWorkspace = new Map<string, WebhookSettings>();

  beforeAll(async () => {
    db = await createTestDatabase('dispatcher');
    store = await openEventStore(db);
    log = new DeliveryLog(db.pool, db.schema);
    checkpoints = new DispatchCheckpoints(db.pool, db.schema);
    await migrateMessagingTables(db.pool, db.schema);
    redis = connectRedis();
    prefix = uniquePrefix('dispatch');
    queues = { webhooks: new Queue(WEBHOOK_QUEUE, { connection: redis, prefix }), email: new Queue(EMAIL_QUEUE, { connection: redis, prefix }) };
  });
  afterAll(async () => {
    await Promise.all([queues.webhooks.close(), queues.email.close()]);
    await deleteKeys(redis, prefix);
    await redis.quit();
    await store.close();
    await db.drop();
  });

  // No workers here: the jobs stay in the queues, where the test counts them.
  const dispatcher = (options: { name?: string; catchUpOnly?: boolean; eventStore?: PostgresEventStore } = {}): Dispatcher => new Dispatcher({
    eventStore: options.eventStore ?? store, checkpoints, emailQueue: queues.email, appUrl: 'http://localhost:3100', name: options.name ?? 'dispatch-test', catchUpOnly: options.catchUpOnly,
    getSigningSecrets: async (workspaceId) => settingsByWorkspace.get(workspaceId) ?? null,
    deliveries: new WebhookDeliveries({ log, queue: queues.webhooks, clock: new TestClock(), getSigningSecrets: async (workspaceId) => settingsByWorkspace.get(workspaceId) ?? null }),
  });
  const jobCounts = async () => ({
    webhooks: await queues.webhooks.getJobCountByTypes('waiting', 'delayed', 'active', 'completed', 'failed'),
    email: await queues.email.getJobCountByTypes('waiting', 'delayed', 'active', 'completed', 'failed'),
  });
  const run = async (until: bigint): Promise<void> => {
    const running = dispatcher();
    await running.start();
    await running.waitForPosition(until);
    await running.stop();
  };
  const settings = (events: WebhookEventName[], enabled = true): WebhookSettings =>
    ({ url: 'https://hooks.example.com/in', events, enabled, secrets: ['whsec_1'] });

  it('turns events into e-mail and webhook jobs once, even when run again from scratch', async () => {
    const live = candidateStory({ workspaceId: 'ws_live', mode: 'live' });
    const quiet = candidateStory({ workspaceId: 'ws_without_webhook', mode: 'live' });
    settingsByWorkspace.set('ws_live', settings(['candidateInvited', 'testCompleted', 'assessmentCompleted', 'resultUnlocked']));
    const [first, second] = TESTS as [typeof TESTS[number], typeof TESTS[number]];
    await appendEvents(store, `assessment-${live.assessmentId}`, [[live.events.invited(time(0)), time(0)]]);
    await appendEvents(store, `assessment-${quiet.assessmentId}`, [[quiet.events.invited(time(0)), time(0)]]);
    const e = live.events;
    const head = await appendEvents(store, `candidate-${live.candidateId}`, [
      [e.created(time(1)), time(1)], [e.registered(time(1)), time(1)], [e.started(time(2)), time(2)],
      [e.testCompleted(time(3), first, 'res_1'), time(3)], [e.testCompleted(time(4), second, 'res_2'), time(4)],
      [e.assessmentCompleted(time(4)), time(4)], [e.unlocked(time(5), 'res_1'), time(5)],
    ]);

    await run(head);
    const afterFirstRun = { jobs: await jobCounts(), deliveries: await log.listDeliveries('ws_live') };
    expect(afterFirstRun.jobs).toStrictEqual({ webhooks: 5, email: 2 });
    expect(afterFirstRun.deliveries.map(({ event }) => event).sort()).toStrictEqual(['assessmentCompleted', 'candidateInvited', 'resultUnlocked', 'testCompleted', 'testCompleted']);
    expect(await log.listDeliveries('ws_without_webhook')).toStrictEqual([]);

    // A crash before the checkpoint was saved: everything runs again, nothing is added.
    await db.pool.query(`DELETE FROM "${db.schema}".dispatch_checkpoints`);
    await run(head);
    expect(await jobCounts()).toStrictEqual(afterFirstRun.jobs);
    expect((await log.listDeliveries('ws_live')).map(({ id }) => id).sort()).toStrictEqual(afterFirstRun.deliveries.map(({ id }) => id).sort());

    // Payloads come from the log as it stood at each event: the later unlock does not show in the completion.
    const byEvent = (name: string) => afterFirstRun.deliveries.find(({ event }) => event === name)?.envelope.data;
    expect(byEvent('assessmentCompleted')).toMatchObject({ unlocked: false, results: [{ id: 'res_1', unlocked: false, scorePercentage: null }, { id: 'res_2', unlocked: false }] });
    expect(byEvent('resultUnlocked')).toMatchObject({ result: { id: 'res_1', unlocked: true, scorePercentage: 82.5 } });
  });

  it('follows on from its checkpoint, and records deliveries to a disabled address without jobs', async () => {
    const story = candidateStory({ workspaceId: 'ws_disabled', mode: 'sandbox' });
    settingsByWorkspace.set('ws_disabled', settings([...WEBHOOK_EVENT_NAMES], false));
    const before = await jobCounts();
    const head = await appendEvents(store, `candidate-${story.candidateId}`, [[story.events.created(time(10)), time(10)], [story.events.registered(time(10)), time(10)]]);
    const running = dispatcher();
    await running.start();
    await running.waitForPosition(head);
    await running.stop();
    expect(await jobCounts()).toStrictEqual(before);
    expect(await log.listDeliveries('ws_disabled')).toMatchObject([{ event: 'candidateCreated', status: 'failed', attempts: 0, lastError: 'endpoint_disabled', sandbox: true }]);
    expect(await checkpoints.read('dispatch-test')).toBe(head);
  });

  it('catches up before it stops when it only catches up, so the next start has no backlog', async () => {
    const story = candidateStory({ workspaceId: 'ws_lazy', mode: 'live' });
    settingsByWorkspace.set('ws_lazy', settings(['candidateCreated']));
    // It polls once a minute: only a kick (waitForPosition, or the stop) makes it read the log.
    const slow = await createPostgresEventStore({ pool: db.pool, schema: db.schema, listen: false, pollIntervalMs: 60_000 });
    const lazy = dispatcher({ name: 'dispatch-lazy', catchUpOnly: true, eventStore: slow });
    try {
      await lazy.start();
      await lazy.waitForPosition((await store.headPosition()) ?? 0n);
      const head = await appendEvents(store, `candidate-${story.candidateId}`, [[story.events.created(time(20)), time(20)], [story.events.registered(time(20)), time(20)]]);
      await lazy.stop();
      expect(await checkpoints.read('dispatch-lazy')).toBe(head);
      expect(await log.listDeliveries('ws_lazy')).toMatchObject([{ event: 'candidateCreated' }]);
    } finally {
      await lazy.stop();
      await slow.close();
    }
  });

  it('reads a workspace\'s webhook settings once per read batch, afresh for the next batch', async () => {
    const stories = Array.from({ length: 6 }, () => candidateStory({ workspaceId: 'ws_batched', mode: 'live' }));
    settingsByWorkspace.set('ws_batched', settings(['candidateInvited']));
    let reads = 0;
    const counted = new Dispatcher({
      eventStore: store, checkpoints, emailQueue: queues.email, appUrl: 'http://localhost:3100', name: 'dispatch-batched',
      getSigningSecrets: async (workspaceId) => {
        reads += workspaceId === 'ws_batched' ? 1 : 0;
        return settingsByWorkspace.get(workspaceId) ?? null;
      },
      deliveries: new WebhookDeliveries({ log, queue: queues.webhooks, clock: new TestClock(), getSigningSecrets: async (workspaceId) => settingsByWorkspace.get(workspaceId) ?? null }),
    });
    const invite = (story: (typeof stories)[number], minute: number) => appendEvents(store, `assessment-${story.assessmentId}`, [[story.events.invited(time(minute)), time(minute)]]);
    for (const story of stories.slice(0, 4)) await invite(story, 30);
    await counted.start();
    try {
      await counted.waitForPosition((await store.headPosition()) ?? 0n);
      expect(reads).toBe(1);
      expect((await log.listDeliveries('ws_batched')).filter((delivery) => delivery.event === 'candidateInvited')).toHaveLength(4);
      // Settings changed before the next events: the batch that reads them reads the settings again.
      settingsByWorkspace.set('ws_batched', settings(['testCompleted']));
      for (const story of stories.slice(4)) await invite(story, 31);
      await counted.waitForPosition((await store.headPosition()) ?? 0n);
      expect(reads).toBeGreaterThanOrEqual(2);
      expect((await log.listDeliveries('ws_batched')).filter((delivery) => delivery.event === 'candidateInvited')).toHaveLength(4);
    } finally {
      await counted.stop();
    }
  });

  it('leaves the e-mails the append transaction recorded (no SMTP): neither rendered nor recorded again', async () => {
    const outbox = new EmailOutbox(db.pool, db.schema);
    await migrateMessagingTables(db.pool, db.schema);
    const recorded: string[] = [];
    const recordMany = outbox.recordMany.bind(outbox);
    outbox.recordMany = async (inputs) => {
      recorded.push(...inputs.map((input) => input.eventId));
      return recordMany(inputs);
    };
    const hinted = new Dispatcher({
      eventStore: store, checkpoints, emailQueue: queues.email, appUrl: 'http://localhost:3100', name: 'dispatch-inline-hint', outbox, emailJobs: false,
      getSigningSecrets: async () => null,
      deliveries: new WebhookDeliveries({ log, queue: queues.webhooks, clock: new TestClock(), getSigningSecrets: async () => null }),
    });
    const stories = Array.from({ length: 3 }, () => candidateStory({ workspaceId: 'ws_inline_hint', mode: 'live' }));
    const invited = await Promise.all(stories.map(async (story) => {
      await appendEvents(store, `assessment-${story.assessmentId}`, [[story.events.invited(time(40)), time(40)]]);
      return (await store.readStream(`assessment-${story.assessmentId}`)).at(-1)?.id ?? '';
    }));
    // As the inline outbox says after its commit: the first two were recorded with their appends.
    hinted.recordedInline(invited.slice(0, 2));
    await hinted.start();
    try {
      await hinted.waitForPosition((await store.headPosition()) ?? 0n);
      expect(recorded.filter((eventId) => invited.includes(eventId))).toEqual([invited[2]]);
      expect(await outbox.listEmails(stories[2]?.candidate.email ?? '')).toHaveLength(1);
      expect(await outbox.listEmails(stories[0]?.candidate.email ?? '')).toHaveLength(0);
    } finally {
      await hinted.stop();
    }
  });
});
