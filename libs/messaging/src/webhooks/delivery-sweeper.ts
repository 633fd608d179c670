import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Clock } from '#platform';
import { type WebhookJob, WEBHOOK_QUEUE, keepJobs, retryDelayMs, retryJobOptions, webhookJobId } from '../shared/queues.js';
import { QueueBesideLegacy } from '../shared/legacy-queues.js';
import type { DeliveryLog } from './delivery-log.js';

export interface DeliverySweeperOptions {
  log: DeliveryLog;
  queue: Queue<WebhookJob>;
  clock: Clock;
  backoffMs: number;
  logger: Logger;
}

/**
 * The delivery rows in SQL are the source of truth for what is still to be sent; the queue in Redis
 * is only the schedule. When Redis loses its data (restarted without persistence, flushed), every
 * pending delivery whose job is gone is enqueued again, due when its retry schedule says (from the
 * last attempt's time and the number of attempts), at once when it never had one. A job that still
 * exists is left alone, and the job id is the delivery's, so a sweep never sends anything twice.
 * Of a webhook recovery's rows still waiting for their turn only the head is listed (listPending):
 * a sweep restarts the sequence where it stood, never all of it at once.
 */
export class DeliverySweeper {
  private running: Promise<number> | null = null;

  constructor(private readonly options: DeliverySweeperOptions) {}

  /** One sweep at a time; a sweep asked for while one runs joins it. Answers how many jobs were re-created. */
  sweep(): Promise<number> {
    this.running ??= this.sweepOnce().finally(() => { this.running = null; });
    return this.running;
  }

  private async sweepOnce(): Promise<number> {
    const { log, queue, clock, backoffMs, logger } = this.options;
    const pending = await log.listPending(1000);
    const now = Date.parse(await clock.now());
    let restored = 0;
    for (const delivery of pending) {
      const jobId = webhookJobId(delivery.id);
      if (await queue.getJob(jobId)) continue;
      // Left by an earlier release under the old prefix, and run from there (LegacyQueueDrain).
      if (queue instanceof QueueBesideLegacy && (await queue.legacyJob(jobId)) !== undefined) continue;
      const dueAt = delivery.attempts === 0 ? now : Date.parse(delivery.updatedAt) + retryDelayMs(delivery.attempts, backoffMs);
      const job: WebhookJob = delivery.recoveryId === undefined ? { deliveryId: delivery.id } : { deliveryId: delivery.id, recoveryId: delivery.recoveryId };
      await queue.add(WEBHOOK_QUEUE, job, { jobId, delay: Math.max(0, dueAt - now), ...retryJobOptions, ...keepJobs });
      restored += 1;
    }
    if (restored > 0) logger.warn({ restored }, 'pending webhook deliveries had lost their queue jobs (Redis lost its data); enqueued again');
    return restored;
  }
}
