import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { createTransport, type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { logQueueError } from '../shared/redis-errors.js';
import type { Clock } from '#platform';
import { reportJobOutcomes } from '#platform/instrumentation/channels.js';
import { EMAIL_QUEUE, crashRecoveryOptions, retryDelayMs, type EmailJob } from '../shared/queues.js';
import { invitationEmail } from './email-jobs.js';
import type { EmailOutbox, StoredEmail } from './outbox.js';

export const DEFAULT_FROM = 'Hiring Test <no-reply@hiring-test.invalid>';

export interface EmailDeps {
  outbox: EmailOutbox;
  clock: Clock;
  /** Null: the outbox only. */
  transport: Transporter | null;
  from?: string;
}

/**
 * Records the e-mail in the outbox (once per event), then hands it to SMTP unless SMTP already took it.
 * An SMTP failure throws, so the job is retried on the webhook schedule; the outbox row stays as it is.
 */
export const sendInvitationEmail = async (deps: EmailDeps, job: EmailJob): Promise<StoredEmail> => {
  const email = await deps.outbox.record(invitationEmail(job, await deps.clock.now()));
  if (!deps.transport || email.smtpAcceptedAt !== null) return email;
  await deps.transport.sendMail({
    from: deps.from ?? DEFAULT_FROM,
    to: email.to,
    subject: email.subject,
    text: email.text,
    html: email.html,
    // Stable per event: should a retry send twice after a lost acknowledgement, mail clients can tell.
    messageId: `<${email.id}@hiring-test.invalid>`,
  });
  await deps.outbox.markSmtpAccepted(email.id, await deps.clock.now());
  return email;
};

export interface EmailWorkerOptions {
  connection: Redis;
  prefix: string;
  outbox: EmailOutbox;
  clock: Clock;
  smtpUrl: string | null;
  backoffMs: number;
  from?: string;
  logger?: Logger;
  concurrency?: number;
  /** BullMQ's worker name (the legacy drain tells its own workers apart by it). */
  workerName?: string;
}

export const createEmailWorker = (options: EmailWorkerOptions): Worker<EmailJob, string> => {
  const transport = options.smtpUrl ? createTransport(options.smtpUrl) : null;
  const deps: EmailDeps = { outbox: options.outbox, clock: options.clock, transport, from: options.from };
  const worker = new Worker<EmailJob, string>(
    EMAIL_QUEUE,
    async (job: Job<EmailJob>) => (await sendInvitationEmail(deps, job.data)).id,
    {
      connection: options.connection,
      prefix: options.prefix,
      ...(options.workerName === undefined ? {} : { name: options.workerName }),
      concurrency: options.concurrency ?? 5,
      // Recording and sending are safe to repeat (outbox keyed by event, SMTP skipped once accepted).
      ...crashRecoveryOptions,
      settings: { backoffStrategy: (failedAttempts: number) => retryDelayMs(failedAttempts, options.backoffMs) },
    },
  );
  worker.on('failed', (job, error) => options.logger?.warn({ err: error, jobId: job?.id, attemptsMade: job?.attemptsMade }, 'e-mail attempt failed'));
  worker.on('error', logQueueError(options.logger, 'e-mail worker error'));
  worker.on('closed', () => transport?.close());
  reportJobOutcomes(worker);
  return worker;
};
