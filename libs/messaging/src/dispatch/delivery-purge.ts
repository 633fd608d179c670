import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { logQueueError } from '../shared/redis-errors.js';
import type { Clock } from '#platform';
import { MAINTENANCE_QUEUE, PURGE_JOB } from '../shared/queues.js';
import type { DeliveryLog } from '../webhooks/delivery-log.js';

const DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;

/**
 * A job scheduler rather than a timer: one schedule however many processes start, and it survives
 * restarts. Upserting the same scheduler id at every start changes nothing.
 */
export const schedulePurge = async (queue: Queue, everyMs: number): Promise<void> => {
  await queue.upsertJobScheduler(PURGE_JOB, { every: everyMs }, { name: PURGE_JOB, data: {}, opts: { removeOnComplete: 50, removeOnFail: 50 } });
};

export const createPurgeWorker = (options: { connection: Redis; prefix: string; log: DeliveryLog; clock: Clock; logger?: Logger; workerName?: string }): Worker => {
  const worker = new Worker(
    MAINTENANCE_QUEUE,
    async (job) => {
      if (job.name !== PURGE_JOB) return 0;
      // Older than 30 days of domain time (the simulated clock moves this line too).
      const purged = await options.log.purgeOlderThan(new Date(Date.parse(await options.clock.now()) - DELIVERY_RETENTION_MS));
      if (purged > 0) options.logger?.info({ purged }, 'purged expired webhook deliveries');
      return purged;
    },
    { connection: options.connection, prefix: options.prefix, concurrency: 1, ...(options.workerName === undefined ? {} : { name: options.workerName }) },
  );
  worker.on('error', logQueueError(options.logger, 'maintenance worker error'));
  return worker;
};
