/** Queue names, job payloads and job ids: the contract between the dispatcher and the workers. */
export const WEBHOOK_QUEUE = 'webhooks';
export const EMAIL_QUEUE = 'email';
export const MAINTENANCE_QUEUE = 'messaging-maintenance';
export const QUEUE_NAMES = [WEBHOOK_QUEUE, EMAIL_QUEUE, MAINTENANCE_QUEUE] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export interface WebhookJob {
  deliveryId: string;
  /** The request that caused the event, for traces (absent on resends and repaired jobs). */
  requestId?: string;
  /** A recovered delivery's recovery: once its attempt ends, the next delivery of the recovery is enqueued. */
  recoveryId?: string;
}

export interface EmailJob {
  eventId: string;
  to: string;
  firstName: string;
  assessmentName: string;
  deadline: string | null;
  invitationUrl: string;
}

export const PURGE_JOB = 'purge-webhook-deliveries';

// BullMQ refuses custom ids containing ':' and ids that look like integers: every id carries a prefix.
export const webhookJobId = (deliveryId: string): string => `webhook-${deliveryId}`;
export const emailJobId = (eventId: string): string => `email-${eventId}`;

/** Retry delays as multiples of WEBHOOK_BACKOFF_MS (product-decisions.md, Webhook deliveries). */
export const RETRY_MULTIPLIERS = [1, 5, 30, 120, 300, 600, 1200, 1440] as const;
/** The first try plus one per retry delay. */
export const MAX_ATTEMPTS = RETRY_MULTIPLIERS.length + 1;

/** BullMQ's custom backoff, given the failed attempts so far (1 after the first); past the schedule, the last delay. */
export const retryDelayMs = (failedAttempts: number, backoffMs: number): number => {
  const index = Math.min(Math.max(failedAttempts, 1), RETRY_MULTIPLIERS.length) - 1;
  return (RETRY_MULTIPLIERS[index] ?? 1) * backoffMs;
};

/**
 * Jobs one webhook worker runs at once: an attempt mostly waits (its row, the receiver), and the
 * delivery log coalesces their statements. At 10, a worker delivered ~700/s with its CPU mostly idle.
 */
export const WEBHOOK_CONCURRENCY = 100;

export const retryJobOptions = { attempts: MAX_ATTEMPTS, backoff: { type: 'schedule' } } as const;

/** Keep finished jobs a while (visible in the dashboard, and their ids still de-duplicate adds). */
export const keepJobs = { removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 }, removeOnFail: { age: 30 * 24 * 3600 } } as const;

/**
 * How fast a job held by a crashed worker is taken up again: its lock lapses after 15 s (renewed every
 * half of it while the job runs, so a 10 s webhook attempt keeps it) and stalled jobs are looked for
 * every 5 s. BullMQ's defaults (30 s each) made recovery take a minute.
 */
export const crashRecoveryOptions = { lockDuration: 15_000, stalledInterval: 5_000, maxStalledCount: MAX_ATTEMPTS } as const;
