import type { Logger } from 'pino';
import { isRedisConnectionError } from '#platform';

/** BullMQ's words for a job whose keys or lock Redis no longer holds: Redis restarted empty or was flushed. */
const LOST_JOB = /^Missing (key|lock) for (parent )?job /;

/** Repeats of one problem are counted for this long after its line, then said in one more line. */
const REPEATS_WINDOW_MS = 30_000;

/**
 * One log line per problem, not one per job: the first occurrence is logged (the error's message,
 * no stack: the problem is known and its cause is outside the process), the repeats within the next
 * 30 s are counted and reported in one line at its end.
 */
export class RepeatedProblem {
  private repeats = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly logger: Logger | undefined, private readonly message: string, private readonly windowMs = REPEATS_WINDOW_MS) {}

  report(fields: Record<string, unknown>): void {
    if (this.timer !== null) {
      this.repeats += 1;
      return;
    }
    this.logger?.warn(fields, this.message);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.repeats > 0) this.logger?.warn({ ...fields, repeated: this.repeats }, `${this.message} (repeated)`);
      this.repeats = 0;
    }, this.windowMs);
    this.timer.unref();
  }
}

/**
 * An `error` listener for queue workers: real errors are logged with their stack, connection trouble
 * is not repeated for every reconnection attempt (the outage is logged once, by
 * libs/runtime/src/redis-health.ts), and jobs Redis lost with its data make one line, not a stack per job.
 */
export const logQueueError = (logger: Logger | undefined, message: string) => {
  const lostJobs = new RepeatedProblem(logger, `${message}: a job's keys were gone from Redis (restarted empty or flushed); its outcome is not recorded in the queue`);
  return (error: Error): void => {
    if (isRedisConnectionError(error)) return;
    if (LOST_JOB.test(error.message)) lostJobs.report({ reason: error.message });
    else logger?.error({ err: error }, message);
  };
};
