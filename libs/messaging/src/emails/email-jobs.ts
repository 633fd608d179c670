import type { Queue } from 'bullmq';
import { EMAIL_QUEUE, emailJobId, keepJobs, retryJobOptions, type EmailJob } from '../shared/queues.js';

/** One job per invitation event: the job id comes from the event id, so a second add is a no-op. */
export const enqueueInvitationEmail = async (queue: Queue<EmailJob>, job: EmailJob): Promise<void> => {
  await queue.add(EMAIL_QUEUE, job, { jobId: emailJobId(job.eventId), ...retryJobOptions, ...keepJobs });
};
