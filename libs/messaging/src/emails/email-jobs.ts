import type { Queue } from 'bullmq';
import type { CandidateInvited } from '#domain';
import { EMAIL_QUEUE, emailJobId, keepJobs, retryJobOptions, type EmailJob } from '../shared/queues.js';
import { invitationUrl } from '../webhooks/envelopes.js';
import { renderInvitationEmail } from './invitation-email.js';
import type { NewEmail } from './outbox.js';

/** The invitation e-mail an event asks for: the same job, whoever makes it (the dispatcher, the inline outbox). */
export const invitationEmailJob = (eventId: string, data: CandidateInvited['data'], appUrl: string): EmailJob => {
  const { email, firstName, assessmentName, deadline, assessmentId, invitationToken } = data;
  return { eventId, to: email, firstName, assessmentName, deadline, invitationUrl: invitationUrl(appUrl, assessmentId, invitationToken) };
};

/** The outbox row of an invitation e-mail, recorded at `sentAt`: the same whoever records it first. */
export const invitationEmail = (job: EmailJob, sentAt: string): NewEmail => ({ eventId: job.eventId, to: job.to, sentAt, ...renderInvitationEmail(job) });

/**
 * One job per invitation event, a whole batch in one round trip (`addBulk`): the job id comes from
 * the event id, so a second add is a no-op.
 */
export const enqueueInvitationEmails = async (queue: Queue<EmailJob>, jobs: readonly EmailJob[]): Promise<void> => {
  if (jobs.length === 0) return;
  await queue.addBulk(jobs.map((job) => ({ name: EMAIL_QUEUE, data: job, opts: { jobId: emailJobId(job.eventId), ...retryJobOptions, ...keepJobs } })));
};
