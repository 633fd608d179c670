import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { logQueueError } from '../shared/redis-errors.js';
import type { Clock } from '#platform';
import { reportJobOutcomes, reportStage, reportWebhookAttempt } from '#platform/instrumentation/channels.js';
import { MAX_ATTEMPTS, WEBHOOK_CONCURRENCY, WEBHOOK_QUEUE, crashRecoveryOptions, retryDelayMs, type WebhookJob } from '../shared/queues.js';
import { ENDPOINT_DISABLED, type AttemptRecord, type DeliveryLog, type StoredDelivery } from './delivery-log.js';
import { addressForLogs, postWebhook } from './post-webhook.js';
import { signWebhook } from './signing.js';
import type { WebhookRecoveries } from './webhook-recovery.js';
import type { DisableWebhook, GetSigningSecrets } from './webhook-settings.js';

const DELIVERY_TIMEOUT_MS = 10_000;
/** The 5-day rule, in domain time. */
const FAILING_AFTER_MS = 5 * 24 * 3600 * 1000;

export interface WebhookWorkerOptions {
  /** A connection with `maxRetriesPerRequest: null`, owned by the caller. */
  connection: Redis;
  prefix: string;
  /** BullMQ's worker name (the legacy drain tells its own workers apart by it). */
  workerName?: string;
  /** Unit of the retry schedule (WEBHOOK_BACKOFF_MS). */
  backoffMs: number;
  /** Jobs run at once (WEBHOOK_CONCURRENCY by default). */
  concurrency?: number;
  /** Webhook recoveries' sequences: a recovered delivery passes its turn once its attempt has ended. */
  recoveries?: WebhookRecoveries;
  log: DeliveryLog;
  clock: Clock;
  getSigningSecrets: GetSigningSecrets;
  disableWebhook: DisableWebhook;
  allowInsecure: boolean;
  /** A 2xx must arrive within this; 10 s in the product, shorter in tests. */
  timeoutMs?: number;
  logger?: Logger;
}

export type DeliveryOutcome = 'skipped' | 'endpoint_disabled' | 'succeeded' | 'retry' | 'failed' | 'gone' | 'failing';

/** Thrown so that BullMQ schedules the next try; the attempt itself is already in the log. */
export class DeliveryAttemptFailed extends Error {
  constructor(readonly deliveryId: string, readonly attemptError: string) {
    super(`webhook delivery ${deliveryId} failed: ${attemptError}`);
    this.name = 'DeliveryAttemptFailed';
  }
}

const headersFor = (delivery: StoredDelivery, secrets: readonly string[]): Record<string, string> => {
  // Real time, not the domain clock: receivers compare it with their own clock to refuse replays.
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'hiring-test-webhooks/1',
    'X-Webhook-Id': delivery.envelope.id,
    'X-Webhook-Timestamp': String(timestamp),
    'X-Webhook-Signature': signWebhook({ body: delivery.body, secrets, timestamp }),
  };
};

const disableQuietly = async (deps: WebhookWorkerOptions, delivery: StoredDelivery, reason: 'gone' | 'failing'): Promise<void> => {
  try {
    await deps.disableWebhook(delivery.workspaceId, delivery.url, reason);
  } catch (error) {
    // The delivery has ended either way; the next failing attempt asks again.
    deps.logger?.error({ err: error, deliveryId: delivery.id, reason }, 'disabling the webhook address failed');
  }
};

/** What the log says of an attempt cut short by the end of its worker (kill -9, a crash, a lost lock). */
export const INTERRUPTED_ATTEMPT = 'interrupted: the worker stopped during this attempt; the receiver may have got it';

/**
 * A stalled job (its worker died mid-attempt) had an attempt the log never heard of, which the
 * receiver may have got: each is logged once, before the next, so the log shows every attempt sent.
 */
const recordInterrupted = async (deps: WebhookWorkerOptions, delivery: StoredDelivery, interrupted: number, at: string): Promise<StoredDelivery> => {
  const logged = delivery.attemptLog.filter((attempt) => attempt.error === INTERRUPTED_ATTEMPT).length;
  if (interrupted <= logged) return delivery;
  for (let i = logged; i < interrupted; i += 1) {
    await deps.log.recordAttempt(delivery.id, { at, responseStatus: null, durationMs: 0, error: INTERRUPTED_ATTEMPT }, 'pending');
  }
  deps.logger?.warn({ deliveryId: delivery.id, interrupted: interrupted - logged }, 'webhook attempt interrupted by the end of its worker; logged, and sent again under the same id');
  return (await deps.log.get(delivery.id)) ?? delivery;
};

/**
 * One attempt of one delivery. `jobIsOnLastTry` lets BullMQ's own count end the delivery even when
 * the log and the queue disagree (an attempt lost in a crash).
 */
export const attemptDelivery = async (deps: WebhookWorkerOptions, deliveryId: string, jobIsOnLastTry = false, interruptedBefore = 0): Promise<DeliveryOutcome> => {
  const found = await deps.log.get(deliveryId);
  // A delivery that already ended is never sent again, even if its job runs twice.
  if (!found || found.status !== 'pending') return 'skipped';
  const at = await deps.clock.now();
  const delivery = await recordInterrupted(deps, found, interruptedBefore, at);
  const settings = await deps.getSigningSecrets(delivery.workspaceId);
  if (!settings || !settings.enabled || settings.secrets.length === 0) {
    await deps.log.failWithoutAttempt(delivery.id, at, ENDPOINT_DISABLED);
    return 'endpoint_disabled';
  }
  const outcome = await postWebhook({
    url: delivery.url, body: delivery.body, headers: headersFor(delivery, settings.secrets),
    timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS, allowInsecure: deps.allowInsecure,
  });
  const attempt: AttemptRecord = { at, responseStatus: outcome.responseStatus, durationMs: outcome.durationMs, error: outcome.error };
  if (outcome.error === null) {
    await deps.log.recordAttempt(delivery.id, attempt, 'succeeded');
    return 'succeeded';
  }
  // The delivery log and the internal application keep the full address; the service log does not.
  deps.logger?.warn({ deliveryId, url: addressForLogs(delivery.url), error: outcome.error, detail: outcome.detail }, 'webhook attempt failed');
  const gone = outcome.responseStatus === 410;
  const lastTry = gone || jobIsOnLastTry || delivery.attempts + 1 >= MAX_ATTEMPTS;
  await deps.log.recordAttempt(delivery.id, attempt, lastTry ? 'failed' : 'pending');
  if (gone) {
    await disableQuietly(deps, delivery, 'gone');
    return 'gone';
  }
  const health = await deps.log.addressHealth(delivery.workspaceId, delivery.url, settings.enabledAt ?? null);
  const failingFor = health.failingSince === null ? 0 : Date.parse(at) - Date.parse(health.failingSince);
  if (failingFor >= FAILING_AFTER_MS) {
    await deps.log.failWithoutAttempt(delivery.id, at, ENDPOINT_DISABLED);
    await disableQuietly(deps, delivery, 'failing');
    return 'failing';
  }
  if (lastTry) return 'failed';
  throw new DeliveryAttemptFailed(delivery.id, outcome.error);
};

export const createWebhookWorker = (options: WebhookWorkerOptions): Worker<WebhookJob, DeliveryOutcome> => {
  const worker = new Worker<WebhookJob, DeliveryOutcome>(
    WEBHOOK_QUEUE,
    async (job: Job<WebhookJob>) => {
      const started = performance.now();
      const startTime = Date.now();
      const report = (outcome: DeliveryOutcome | 'retry' | 'error'): void => {
        reportWebhookAttempt(started, outcome);
        if (job.data.requestId !== undefined) reportStage('webhook', [job.data.requestId], startTime, { 'hiring.webhook.outcome': outcome, 'hiring.webhook.attempt': job.attemptsMade + 1 });
      };
      // Only once the attempt has ended, failed attempts included (they go on with their own retries), and
      // before the job completes: a crash in between runs the job again, which passes the turn then.
      const passTurn = async (): Promise<void> => {
        if (job.data.recoveryId !== undefined) await options.recoveries?.passTurn(job.data.deliveryId, job.data.recoveryId);
      };
      try {
        const outcome = await attemptDelivery(options, job.data.deliveryId, job.attemptsMade + 1 >= (job.opts.attempts ?? MAX_ATTEMPTS), job.stalledCounter)
          .catch(async (error: unknown) => {
            if (error instanceof DeliveryAttemptFailed) await passTurn();
            throw error;
          });
        await passTurn();
        report(outcome);
        return outcome;
      } catch (error) {
        report(error instanceof DeliveryAttemptFailed ? 'retry' : 'error');
        throw error;
      }
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      ...(options.workerName === undefined ? {} : { name: options.workerName }),
      concurrency: options.concurrency ?? WEBHOOK_CONCURRENCY,
      // An attempt is safe to repeat (it re-reads its row, sends the same bytes): a job is taken up again
      // after every crash, not failed after the second (BullMQ's default would leave it pending for ever).
      ...crashRecoveryOptions,
      settings: { backoffStrategy: (failedAttempts: number) => retryDelayMs(failedAttempts, options.backoffMs) },
    },
  );
  worker.on('failed', (job, error) => {
    if (!job || error instanceof DeliveryAttemptFailed) return;
    // An UnrecoverableError (e.g. "job stalled more than allowable limit") is final whatever attemptsMade says.
    const final = error?.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? MAX_ATTEMPTS);
    if (!final) return;
    // The queue gave up for a reason of its own (the store was down, the job stalled too often): the log must not stay pending.
    void options.clock.now()
      .then((at) => options.log.failWithoutAttempt(job.data.deliveryId, at, 'delivery_error'))
      .then(() => (job.data.recoveryId === undefined ? undefined : options.recoveries?.passTurn(job.data.deliveryId, job.data.recoveryId)))
      .catch((failure: unknown) => options.logger?.error({ err: failure, jobId: job.id }, 'could not end a delivery'));
  });
  worker.on('error', logQueueError(options.logger, 'webhook worker error'));
  reportJobOutcomes(worker);
  return worker;
};
