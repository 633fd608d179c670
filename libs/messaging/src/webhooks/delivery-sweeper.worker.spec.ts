import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { WEBHOOK_QUEUE, type WebhookJob, retryDelayMs, webhookJobId } from '../shared/queues.js';
import { TestClock } from '../test-support/clock.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { connectRedis, deleteKeys, uniquePrefix } from '../test-support/redis.js';
import { DeliveryLog } from './delivery-log.js';
import { DeliverySweeper } from './delivery-sweeper.js';
import { migrateMessagingTables } from '../shared/messaging.migrations.js';

const BACKOFF_MS = 60_000;

describe('DeliverySweeper (real Redis, PostgreSQL)', () => {
  let db: TestDatabase;
  let redis: Redis;
  let prefix: string;
  let queue: Queue<WebhookJob>;
  let log: DeliveryLog;
  const clock = new TestClock('2026-11-02T09:00:00.000Z');

  beforeAll(async () => {
    db = await createTestDatabase('sweeper');
    log = new DeliveryLog(db.pool, db.schema);
    await migrateMessagingTables(db.pool, db.schema);
    redis = connectRedis();
    prefix = uniquePrefix('sweeper');
    queue = new Queue<WebhookJob>(WEBHOOK_QUEUE, { connection: redis, prefix });
    await queue.waitUntilReady();
  }, 30_000);
  afterAll(async () => {
    await queue.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
    await db.drop();
  });

  const pending = async (attempts: number): Promise<string> => {
    const id = `whd_${randomUUID()}`;
    await log.insertIfAbsent({ id, workspaceId: 'ws_a', eventId: randomUUID(), event: 'candidateCreated', url: 'https://hooks.example.com/in', body: '{}', sandbox: false, createdAt: await clock.now() });
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      await log.recordAttempt(id, { at: await clock.now(), responseStatus: 500, durationMs: 5, error: 'http_500' }, 'pending');
    }
    return id;
  };

  it('re-creates the jobs of pending deliveries that Redis lost, due on their retry schedule, and only once', async () => {
    const neverTried = await pending(0);
    const triedTwice = await pending(2);
    const stillQueued = await pending(1);
    await queue.add(WEBHOOK_QUEUE, { deliveryId: stillQueued }, { jobId: webhookJobId(stillQueued), delay: 1000 });
    const finished = await pending(0);
    await log.recordAttempt(finished, { at: await clock.now(), responseStatus: 200, durationMs: 5, error: null }, 'succeeded');
    const sweeper = new DeliverySweeper({ log, queue, clock, backoffMs: BACKOFF_MS, logger: pino({ level: 'silent' }) });

    expect(await sweeper.sweep()).toBe(2);

    const first = await queue.getJob(webhookJobId(neverTried));
    const retried = await queue.getJob(webhookJobId(triedTwice));
    expect(first?.data).toEqual({ deliveryId: neverTried });
    expect(first?.opts.delay ?? 0).toBe(0);
    expect(retried?.opts.delay).toBe(retryDelayMs(2, BACKOFF_MS));
    expect(await queue.getJob(webhookJobId(finished))).toBeUndefined();
    // Nothing is enqueued twice: the jobs exist now.
    expect(await sweeper.sweep()).toBe(0);
  }, 30_000);
});
