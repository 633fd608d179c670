import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { hashTagged } from '#platform';
import { keySlot, watchMultiKeyCommands } from '#platform/testing/key-slots.js';
import { waitFor } from '../test-support/clock.js';
import { REDIS_URL, connectRedis, deleteKeys, uniquePrefix } from '../test-support/redis.js';
import { WEBHOOK_QUEUE, crashRecoveryOptions } from './queues.js';

/*
 * BullMQ's scripts declare keys of one queue; under a hash-tagged prefix they must all hash to one
 * slot, or a Redis Cluster refuses them (CROSSSLOT). Read back from MONITOR while a job is added,
 * delayed, taken, retried and completed.
 */
describe('queue keys on a Redis Cluster (real Redis)', () => {
  let redis: Redis;
  const name = uniquePrefix('slots');
  const prefix = hashTagged(name);

  beforeAll(() => {
    redis = connectRedis();
  });
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('every script a queue and its worker run declares keys of the prefix\'s one slot', async () => {
    const watch = await watchMultiKeyCommands(REDIS_URL, name);
    const queue = new Queue(WEBHOOK_QUEUE, { connection: connectRedis(), prefix });
    let attempts = 0;
    const worker = new Worker(WEBHOOK_QUEUE, async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('first attempt fails');
      return 'done';
    }, { connection: connectRedis(), prefix, ...crashRecoveryOptions, settings: { backoffStrategy: () => 50 } });
    await worker.waitUntilReady();
    await queue.add(WEBHOOK_QUEUE, { n: 1 }, { jobId: 'job-1', attempts: 2, backoff: { type: 'custom' } });
    await queue.add(WEBHOOK_QUEUE, { n: 2 }, { jobId: 'job-2', delay: 100 });
    await waitFor(async () => (await queue.getJobCounts('completed')).completed === 2, 10_000, 'both jobs to complete');
    await worker.close();
    await queue.close();
    await watch.stop();

    expect(watch.seen.length).toBeGreaterThan(4);
    const slots = new Set(watch.seen.flatMap(({ keys }) => keys.filter((key) => key.startsWith(prefix)).map(keySlot)));
    expect([...slots]).toEqual([keySlot(prefix)]);
    for (const { command, keys } of watch.seen) expect({ command, keys, slots: new Set(keys.map(keySlot)).size }).toEqual({ command, keys, slots: 1 });
  });
});
