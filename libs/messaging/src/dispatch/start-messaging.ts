import { Queue, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { EventStore } from '#event-store';
import type { Clock, DatabaseOutage } from '#platform';
import { createEmailWorker } from '../emails/email.worker.js';
import { EmailOutbox, type OutboxEmail } from '../emails/outbox.js';
import { EMAIL_QUEUE, MAINTENANCE_QUEUE, QUEUE_NAMES, WEBHOOK_QUEUE, type EmailJob, type QueueName, type WebhookJob } from '../shared/queues.js';
import { type DeliveryPage, type DeliveryPlace, DeliveryLog, type WebhookDelivery } from '../webhooks/delivery-log.js';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.js';
import { createWebhookWorker } from '../webhooks/webhook-delivery.worker.js';
import { DeliverySweeper } from '../webhooks/delivery-sweeper.js';
import { RecoveryLog } from '../webhooks/recovery-log.js';
import { type FeedWindow, type RecoveryResult, type RecoveryWindow, WebhookRecoveries } from '../webhooks/webhook-recovery.js';
import type { DisableWebhook, GetSigningSecrets } from '../webhooks/webhook-settings.js';
import { createPurgeWorker, schedulePurge } from './delivery-purge.js';
import { DispatchCheckpoints } from './dispatch-checkpoints.js';
import { migrateMessagingTables } from '../shared/messaging.migrations.js';
import { LegacyQueueDrain, QueueBesideLegacy } from '../shared/legacy-queues.js';
import { logQueueError } from '../shared/redis-errors.js';
import { DISPATCHER_NAME, Dispatcher, type ErasureReaction } from './dispatcher.js';

export interface StartMessagingOptions {
  eventStore: EventStore;
  pool: Pool;
  /** PostgreSQL schema of the delivery log, the outbox and the dispatch checkpoint. */
  schema?: string;
  /** The caller records e-mails in the append transactions (createInlineOutbox): the dispatcher only catches up. */
  outboxInline?: boolean;
  /** Used only as a template: messaging opens its own connections and closes them on stop. */
  redis: Redis;
  /** BullMQ key prefix (hash-tagged in the service: docs/architecture.md, Redis keys). */
  prefix?: string;
  /** The prefix an earlier release used for the same queues: its jobs are run until none is left (LegacyQueueDrain). */
  legacyPrefix?: string;
  clock: Clock;
  appUrl: string;
  smtpUrl: string | null;
  backoffMs: number;
  allowInsecure: boolean;
  getSigningSecrets: GetSigningSecrets;
  disableWebhook: DisableWebhook;
  /** The events feed, which webhook recoveries deliver again. */
  feedWindow: FeedWindow;
  logger: Logger;
  /** Webhook jobs one worker runs at once (WEBHOOK_CONCURRENCY, 100, by default). */
  webhookConcurrency?: number;
  purgeEveryMs?: number;
  /** False in processes that only read the log and enqueue resends (the internal app of a multi-process set-up). */
  runWorkers?: boolean;
  /** The dispatcher's reaction to a deleted person (DispatcherOptions.erasure), given the outbox and delivery log. */
  erasure?: (tables: { outbox: EmailOutbox; log: DeliveryLog }) => ErasureReaction;
  /** The database's health: the dispatcher waits out an outage instead of retrying and logging every second. */
  database?: DatabaseOutage;
  /** The dispatcher is made but not started: a worker of a cluster starts and stops it with its lease. */
  dispatcherUnderLease?: boolean;
}

export type QueueCounts = Record<'waiting' | 'active' | 'delayed' | 'failed', number>;

export interface Messaging {
  stop(): Promise<void>;
  /** The new delivery's id, or null for an unknown delivery. */
  resend(deliveryId: string): Promise<string | null>;
  /** Delivers a window of events again, in the log's order (webhook-recovery.ts); null without a webhook. */
  recover(workspaceId: string, window: RecoveryWindow): Promise<RecoveryResult | null>;
  listDeliveries(workspaceId: string): Promise<WebhookDelivery[]>;
  /** One page of the delivery log, newest first (DeliveryLog.pageDeliveries). */
  pageDeliveries(workspaceId: string, options: { limit: number; after?: DeliveryPlace }): Promise<DeliveryPage>;
  listEmails(to: string): Promise<OutboxEmail[]>;
  listRecentEmails(limit: number): Promise<OutboxEmail[]>;
  queueHealth(): Promise<Record<QueueName, QueueCounts>>;
  queues: { webhooks: Queue<WebhookJob>; email: Queue<EmailJob>; maintenance: Queue };
  /** Null where this process runs no workers. */
  dispatcher: Dispatcher | null;
  /** The e-mail outbox (for the inline outbox, which writes its rows in the append transactions). */
  outbox: EmailOutbox;
  /** The dispatcher's checkpoint as stored (read-your-writes for processes that do not dispatch). */
  dispatchedPosition(): Promise<bigint | null>;
}

/** A queue command (add, counts) on a Redis that does not answer fails after this (docs/operations.md, "High availability"). */
const QUEUE_COMMAND_TIMEOUT_MS = 5000;

/** Creates the tables, starts the workers, then the dispatcher (so the first jobs find a worker). */
export const startMessaging = async (options: StartMessagingOptions): Promise<Messaging> => {
  const schema = options.schema ?? 'messaging';
  const prefix = options.prefix ?? 'bull';
  const { clock, logger } = options;
  const log = new DeliveryLog(options.pool, schema);
  const outbox = new EmailOutbox(options.pool, schema);
  const checkpoints = new DispatchCheckpoints(options.pool, schema);
  await migrateMessagingTables(options.pool, schema);

  // BullMQ workers need connections that retry forever; one per user keeps blocking calls apart.
  const connections: Redis[] = [];
  const connection = (use: 'queue' | 'worker' = 'worker'): Redis => {
    // These wait out an outage and reconnect forever (behind Sentinel, following a failover). Workers
    // block by design (BZPOPMIN): no command timeout, BullMQ's watchdog resets a stuck call. The queue's
    // never blocks: a silent master fails its commands after 5 s (the dispatcher enqueues again).
    const created: Redis = options.redis.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true, commandTimeout: use === 'queue' ? QUEUE_COMMAND_TIMEOUT_MS : undefined });
    created.on('error', () => undefined);
    connections.push(created);
    return created;
  };
  const closers: (() => Promise<unknown>)[] = [];
  const queueConnection = connection('queue');
  const runWorkers = options.runWorkers ?? true;
  // Made before the queues, which ask it whether a job is left under the old prefix before adding it again.
  const legacy = options.legacyPrefix === undefined || options.legacyPrefix === prefix ? null : new LegacyQueueDrain({
    connection: queueConnection, prefix: options.legacyPrefix, logger,
    // A process without workers only keeps the adds from doubling; the workers of another process run the jobs.
    startWorker: (name, legacyPrefix, workerName) => (runWorkers ? workerFor(name, legacyPrefix, workerName) : { close: async () => undefined }),
  });
  const queues = {
    webhooks: new QueueBesideLegacy<WebhookJob>(WEBHOOK_QUEUE, { connection: queueConnection, prefix }, legacy),
    email: new QueueBesideLegacy<EmailJob>(EMAIL_QUEUE, { connection: queueConnection, prefix }, legacy),
    maintenance: new Queue(MAINTENANCE_QUEUE, { connection: queueConnection, prefix }),
  };
  for (const queue of Object.values(queues)) queue.on('error', logQueueError(logger, 'queue error'));
  const deliveries = new WebhookDeliveries({ log, queue: queues.webhooks, clock, getSigningSecrets: options.getSigningSecrets });
  const recoveries = new WebhookRecoveries({
    log: new RecoveryLog(options.pool, schema), deliveries, clock, getSigningSecrets: options.getSigningSecrets,
    feedWindow: options.feedWindow, logger,
  });
  // One worker per queue, each on a connection of its own (the table is keyed by QUEUE_NAMES: a new queue does not compile without its worker).
  const workerFor = (name: QueueName, workerPrefix: string, workerName?: string): Worker => {
    const named = workerName === undefined ? {} : { workerName };
    const startWorker: Record<QueueName, () => Worker> = {
      [WEBHOOK_QUEUE]: () => createWebhookWorker({
        connection: connection(), prefix: workerPrefix, log, clock, logger, backoffMs: options.backoffMs, allowInsecure: options.allowInsecure,
        getSigningSecrets: options.getSigningSecrets, disableWebhook: options.disableWebhook, concurrency: options.webhookConcurrency,
        recoveries, ...named,
      }),
      [EMAIL_QUEUE]: () => createEmailWorker({ connection: connection(), prefix: workerPrefix, outbox, clock, smtpUrl: options.smtpUrl, backoffMs: options.backoffMs, logger, ...named }),
      [MAINTENANCE_QUEUE]: () => createPurgeWorker({ connection: connection(), prefix: workerPrefix, log, clock, logger, ...named }),
    };
    return startWorker[name]();
  };
  const workers: Worker[] = [];
  let dispatcher: Dispatcher | null = null;
  if (legacy !== null) {
    legacy.start();
    closers.push(() => legacy.stop());
  }
  if (runWorkers) {
    for (const name of QUEUE_NAMES) workers.push(workerFor(name, prefix));
    closers.push(() => Promise.all(workers.map((worker) => worker.close())));
    // Not awaited: with Redis unreachable the service still starts degraded (what needs Redis answers
    // 500, the health route says so); workers connect and the purge is scheduled once it answers.
    void Promise.all(workers.map((worker) => worker.waitUntilReady()))
      .catch((error: unknown) => logger.error({ err: error }, 'queue workers could not start'));
    // At every (re)connection Redis may have come back empty: the purge is registered again (an upsert)
    // and the delivery rows are compared with the queue; also every few minutes (a FLUSHALL without one).
    const sweeper = new DeliverySweeper({ log, queue: queues.webhooks, clock, backoffMs: options.backoffMs, logger });
    const repair = (): void => {
      void schedulePurge(queues.maintenance, options.purgeEveryMs ?? 3600_000)
        .then(() => sweeper.sweep())
        .catch((error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'queue repair after (re)connecting failed; retried at the next one'));
    };
    queueConnection.on('ready', repair);
    if (queueConnection.status === 'ready') repair();
    const sweepTimer = setInterval(repair, 300_000);
    sweepTimer.unref();
    closers.push(async () => {
      clearInterval(sweepTimer);
      queueConnection.off('ready', repair);
    });

    dispatcher = new Dispatcher({
      eventStore: options.eventStore, checkpoints, deliveries, emailQueue: queues.email, outbox, emailJobs: options.smtpUrl !== null,
      getSigningSecrets: options.getSigningSecrets, appUrl: options.appUrl, logger, catchUpOnly: options.outboxInline === true,
      ...(options.erasure === undefined ? {} : { erasure: options.erasure({ outbox, log }) }),
      ...(options.database === undefined ? {} : { database: options.database }),
    });
    if (options.dispatcherUnderLease !== true) await dispatcher.start();
  }

  const counts = async (queue: Queue): Promise<QueueCounts> => {
    const { waiting = 0, active = 0, delayed = 0, failed = 0 } = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
    return { waiting, active, delayed, failed };
  };

  return {
    queues,
    dispatcher,
    outbox,
    resend: (deliveryId) => deliveries.resendDelivery(deliveryId),
    recover: (workspaceId, window) => recoveries.recover(workspaceId, window),
    dispatchedPosition: () => checkpoints.read(DISPATCHER_NAME),
    listDeliveries: (workspaceId) => log.listDeliveries(workspaceId),
    pageDeliveries: (workspaceId, options) => log.pageDeliveries(workspaceId, options),
    listEmails: (to) => outbox.listEmails(to),
    listRecentEmails: (limit) => outbox.listRecent(limit),
    queueHealth: async () => Object.fromEntries(await Promise.all(Object.values(queues).map(async (queue) => [queue.name, await counts(queue)] as const))) as Record<QueueName, QueueCounts>,
    stop: async () => {
      // Nothing new is enqueued once the dispatcher stops; workers then finish the jobs in hand.
      await dispatcher?.stop();
      await Promise.all(closers.map((close) => close()));
      await Promise.all(Object.values(queues).map((queue) => queue.close()));
      await Promise.all(connections.map((created) => created.quit().catch(() => created.disconnect())));
    },
  };
};
