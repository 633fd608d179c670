import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';
import { logQueueError } from '../shared/redis-errors.js';
import type { Clock } from '#platform';
import { reportJobOutcomes } from '#platform/instrumentation/channels.js';
import { EMAIL_QUEUE, crashRecoveryOptions, retryDelayMs, type EmailJob } from '../shared/queues.js';
import { invitationEmail } from './email-jobs.js';
import type { EmailOutbox } from './outbox.js';

const FROM = 'Hiring Test <no-reply@hiring-test.invalid>';

export interface EmailWorkerOptions {
  connection: Redis;
  prefix: string;
  outbox: EmailOutbox;
  clock: Clock;
  /** Null: the outbox only. */
  smtpUrl: string | null;
  backoffMs: number;
  logger?: Logger;
  /** BullMQ's worker name (the legacy drain tells its own workers apart by it). */
  workerName?: string;
}

export const createEmailWorker = (options: EmailWorkerOptions): Worker<EmailJob, string> => {
  const { outbox, clock } = options;
  const transport = options.smtpUrl ? createTransport(options.smtpUrl) : null;
  /**
   * Records the e-mail in the outbox (once per event), then hands it to SMTP unless SMTP already took it.
   * An SMTP failure throws, so the job is retried on the webhook schedule; the outbox row stays as it is.
   */
  const send = async (job: Job<EmailJob>): Promise<string> => {
    const email = await outbox.record(invitationEmail(job.data, await clock.now()));
    if (!transport || email.smtpAcceptedAt !== null) return email.id;
    await transport.sendMail({
      from: FROM,
      to: email.to,
      subject: email.subject,
      text: email.text,
      html: email.html,
      // Stable per event: should a retry send twice after a lost acknowledgement, mail clients can tell.
      messageId: `<${email.id}@hiring-test.invalid>`,
    });
    await outbox.markSmtpAccepted(email.id, await clock.now());
    return email.id;
  };
  const worker = new Worker<EmailJob, string>(EMAIL_QUEUE, send, {
    connection: options.connection,
    prefix: options.prefix,
    ...(options.workerName === undefined ? {} : { name: options.workerName }),
    concurrency: 5,
    // Recording and sending are safe to repeat (outbox keyed by event, SMTP skipped once accepted).
    ...crashRecoveryOptions,
    settings: { backoffStrategy: (failedAttempts: number) => retryDelayMs(failedAttempts, options.backoffMs) },
  });
  worker.on('failed', (job, error) => options.logger?.warn({ err: error, jobId: job?.id, attemptsMade: job?.attemptsMade }, 'e-mail attempt failed'));
  worker.on('error', logQueueError(options.logger, 'e-mail worker error'));
  worker.on('closed', () => transport?.close());
  reportJobOutcomes(worker);
  return worker;
};
