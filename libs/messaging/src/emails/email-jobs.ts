import type { Queue } from 'bullmq';
import type { CandidateInvited } from '#domain';
import { EMAIL_QUEUE, emailJobId, keepJobs, retryJobOptions, type EmailJob } from '../shared/queues.js';
import { invitationUrl } from '../webhooks/envelopes.js';

/** The invitation e-mail an event asks for: the same job, whoever makes it (the dispatcher, the inline outbox). */
export const invitationEmailJob = (eventId: string, data: CandidateInvited['data'], appUrl: string): EmailJob => {
  const { email, firstName, assessmentName, deadline, assessmentId, invitationToken } = data;
  return { eventId, to: email, firstName, assessmentName, deadline, invitationUrl: invitationUrl(appUrl, assessmentId, invitationToken) };
};

/** One job per invitation event: the job id comes from the event id, so a second add is a no-op. */
export const enqueueInvitationEmail = async (queue: Queue<EmailJob>, job: EmailJob): Promise<void> => {
  await queue.add(EMAIL_QUEUE, job, { jobId: emailJobId(job.eventId), ...retryJobOptions, ...keepJobs });
};

/** The jobs of a whole batch of invitation events in one round trip (`addBulk`); ids as above, so a repeat adds nothing. */
export const enqueueInvitationEmails = async (queue: Queue<EmailJob>, jobs: readonly EmailJob[]): Promise<void> => {
  if (jobs.length === 0) return;
  await queue.addBulk(jobs.map((job) => ({ name: EMAIL_QUEUE, data: job, opts: { jobId: emailJobId(job.eventId), ...retryJobOptions, ...keepJobs } })));
};
