import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import type { Pool } from 'pg';
import { createEmbeddedEventStore, type EventStore } from '#event-store';
import { UNKNOWN_EVENT_CHANNEL, type UnknownEventObserved } from '#platform/instrumentation/channels.js';
import { EMAIL_QUEUE, WEBHOOK_QUEUE, type EmailJob, type WebhookJob } from '../shared/queues.js';
import { TestClock } from '../test-support/clock.js';
import { candidateStory, newEvent } from '../test-support/domain-events.js';
import { openEventStore } from '../test-support/event-store.js';
import { createTestDatabase } from '../test-support/postgres.js';
import { connectRedis, deleteKeys, uniquePrefix } from '../test-support/redis.js';
import { DeliveryLog } from '../webhooks/delivery-log.js';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.js';
import type { WebhookSettings } from '../webhooks/webhook-settings.js';
import { DispatchCheckpoints } from './dispatch-checkpoints.js';
import { Dispatcher } from './dispatcher.js';
import { migrateMessagingTables } from '../shared/messaging.migrations.js';

// An embedded PGlite starts in seconds on a loaded machine (the default hook timeout is 5 s).
jest.setTimeout(60_000);

interface Backend { store: EventStore; pool: Pool; schema: string; close(): Promise<void> }

const onPostgres = async (): Promise<Backend> => {
  const db = await createTestDatabase('dispatch-unknown');
  const store = await openEventStore(db);
  return { store, pool: db.pool, schema: db.schema, close: async () => { await store.close(); await db.drop(); } };
};

const onEmbedded = async (): Promise<Backend> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'dispatch-unknown-'));
  const { store, database, stop } = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'silent' }) });
  return { store, pool: database.pool, schema: 'messaging', close: async () => { await stop(); await rm(dataDir, { recursive: true, force: true }); } };
};

const time = (minute: number): string => new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString();
/** A type no version of this code knows: what a newer version would write during a rolling deploy. */
const FUTURE_TYPE = 'CandidateNicknameChosen';

// A rolling deploy: the older version does not know some event types. Played here by a dispatcher
// that takes CandidateCreated for unknown (the "older" one) and one that knows it (the "newer" one).
describe.each([['PostgreSQL', onPostgres], ['embedded PGlite', onEmbedded]])('dispatcher and event types it does not know, on %s', (_name, open) => {
  let backend: Backend;
  let redis: Redis;
  let prefix: string;
  let queues: { webhooks: Queue<WebhookJob>; email: Queue<EmailJob> };
  let log: DeliveryLog;
  let checkpoints: DispatchCheckpoints;
  const settings: WebhookSettings = { url: 'https://hooks.example.com/in', events: ['candidateCreated', 'assessmentStarted'], enabled: true, secrets: ['whsec_1'] };

  beforeAll(async () => {
    backend = await open();
    if (backend.schema === 'messaging') await backend.pool.query('CREATE SCHEMA IF NOT EXISTS messaging');
    log = new DeliveryLog(backend.pool, backend.schema);
    checkpoints = new DispatchCheckpoints(backend.pool, backend.schema);
    await migrateMessagingTables(backend.pool, backend.schema);
    redis = connectRedis();
    prefix = uniquePrefix('dispatch-unknown');
    queues = { webhooks: new Queue(WEBHOOK_QUEUE, { connection: redis, prefix }), email: new Queue(EMAIL_QUEUE, { connection: redis, prefix }) };
  });
  afterAll(async () => {
    await Promise.all([queues?.webhooks.close(), queues?.email.close()]);
    await deleteKeys(redis, prefix);
    await redis.quit();
    await backend.close();
  });

  const dispatcher = (knownEventType: (type: string) => boolean, logLines: string[]): Dispatcher => new Dispatcher({
    eventStore: backend.store, checkpoints, emailQueue: queues.email, appUrl: 'http://localhost:3100', name: 'dispatch-rolling', knownEventType,
    logger: pino({ level: 'info' }, { write: (line: string) => { logLines.push(line); } }),
    getSigningSecrets: async () => settings,
    deliveries: new WebhookDeliveries({ log, queue: queues.webhooks, clock: new TestClock(), getSigningSecrets: async () => settings }),
  });

  it('an older dispatcher goes past them (counted once, one warning per type) and a newer one dispatches what it recorded', async () => {
    const story = candidateStory({ workspaceId: `ws_${randomUUID().slice(0, 8)}`, mode: 'live' });
    const stream = `candidate-${story.candidateId}`;
    await backend.store.appendToStream(stream, [newEvent(story.events.created(time(1)), time(1))], { expectedRevision: 'any' });
    const future = (await backend.store.appendToStream(stream, [{ ...newEvent(story.events.registered(time(1)), time(1)), type: FUTURE_TYPE, data: { nickname: 'ada' } }], { expectedRevision: 'any' })).position;
    const head = (await backend.store.appendToStream(stream, [newEvent(story.events.registered(time(2)), time(2)), newEvent(story.events.started(time(3)), time(3))], { expectedRevision: 'any' })).position;

    const counted: UnknownEventObserved[] = [];
    const listener = (message: unknown): void => { counted.push(message as UnknownEventObserved); };
    subscribe(UNKNOWN_EVENT_CHANNEL.name, listener);
    const olderLog: string[] = [];
    try {
      const older = dispatcher((type) => type !== FUTURE_TYPE && type !== 'CandidateCreated', olderLog);
      await older.start();
      await older.waitForPosition(head);
      await older.stop();
    } finally {
      unsubscribe(UNKNOWN_EVENT_CHANNEL.name, listener);
    }
    // Past them: the checkpoint at the head, the later events dispatched, nothing for the skipped ones.
    expect(await checkpoints.read('dispatch-rolling')).toBe(head);
    expect((await log.listDeliveries(story.workspaceId)).map(({ event }) => event)).toStrictEqual(['assessmentStarted']);
    expect(counted).toStrictEqual([{ follower: 'dispatcher', type: 'CandidateCreated' }, { follower: 'dispatcher', type: FUTURE_TYPE }]);
    const warnings = olderLog.map((line) => JSON.parse(line) as { level: number; type?: string }).filter(({ level }) => level === 40);
    expect(warnings.map(({ type }) => type)).toStrictEqual(['CandidateCreated', FUTURE_TYPE]);
    expect((await checkpoints.skipped('dispatch-rolling')).map(({ type }) => type).sort()).toStrictEqual(['CandidateCreated', FUTURE_TYPE].sort());

    // The newer version knows CandidateCreated: it dispatches the recorded event at start, once.
    const newerLog: string[] = [];
    const newer = dispatcher((type) => type !== FUTURE_TYPE, newerLog);
    await newer.start();
    await newer.waitForPosition(head);
    await newer.stop();
    expect((await log.listDeliveries(story.workspaceId)).map(({ event }) => event).sort()).toStrictEqual(['assessmentStarted', 'candidateCreated']);
    expect(await checkpoints.skipped('dispatch-rolling')).toStrictEqual([{ type: FUTURE_TYPE, position: future }]);
    expect(await checkpoints.read('dispatch-rolling')).toBe(head);

    // Started again: nothing recorded of what it knows, nothing sent twice.
    const again = dispatcher((type) => type !== FUTURE_TYPE, []);
    await again.start();
    await again.stop();
    expect((await log.listDeliveries(story.workspaceId)).map(({ event }) => event).sort()).toStrictEqual(['assessmentStarted', 'candidateCreated']);
  }, 30_000);
});
