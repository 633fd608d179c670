import { randomUUID } from 'node:crypto';
import { type Job, Queue, type QueueOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { PURGE_JOB, QUEUE_NAMES, type QueueName } from './queues.js';

/** States whose jobs will still run: an active one comes back as stalled once its worker is gone. */
const UNFINISHED = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

const DRAIN_WORKER = 'legacy-drain';

export interface StartedWorker {
  close(): Promise<void>;
}

export interface LegacyQueueDrainOptions {
  /** A connection that never blocks (the queues'). */
  connection: Redis;
  /** The untagged prefix of releases before hash tags. */
  prefix: string;
  /** The queue's own worker on `prefix`, named `workerName` (so that it is told apart from an old release's). */
  startWorker(name: QueueName, prefix: string, workerName: string): StartedWorker;
  logger: Logger;
}

/**
 * Jobs of releases before hash-tagged prefixes wait under the old, untagged prefix. The same processor
 * runs there until a queue holds nothing unfinished and no old release's worker is attached (a rolling
 * upgrade), then it is left alone. Nothing is ever added or deleted there (the erasure scrubs it too).
 */
export class LegacyQueueDrain {
  private readonly workerName = `${DRAIN_WORKER}-${randomUUID()}`;
  private readonly queues: Record<QueueName, Queue>;
  private readonly workers = new Map<QueueName, StartedWorker>();
  private readonly drained = new Set<QueueName>();
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private schedulerRemoved = false;
  private stopped = false;

  constructor(private readonly options: LegacyQueueDrainOptions) {
    const entries = QUEUE_NAMES.map((name) => [name, new Queue(name, { connection: options.connection, prefix: options.prefix })] as const);
    this.queues = Object.fromEntries(entries) as Record<QueueName, Queue>;
    for (const queue of Object.values(this.queues)) queue.on('error', () => undefined);
  }

  /** Looks now and every 5 s until every queue is drained (its workers need the rest of messaging made). */
  start(): void {
    this.timer = setInterval(() => void this.check(), 5_000);
    this.timer.unref();
    void this.check();
  }

  get done(): boolean {
    return this.drained.size === QUEUE_NAMES.length;
  }

  /** The job of that id under the old prefix, any state, while its queue is not drained: adding it again would run it twice. */
  async job(name: QueueName, jobId: string): Promise<Job | undefined> {
    if (this.drained.has(name)) return undefined;
    return this.queues[name].getJob(jobId);
  }

  /** One look at every queue not yet drained; a look asked for while one runs joins it. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce()
      .catch((error: unknown) => this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'looking at the queues of the old prefix failed; looked at again soon'))
      .finally(() => { this.checking = null; });
    return this.checking;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.checking;
    await Promise.all([...this.workers.values()].map((worker) => worker.close()));
    this.workers.clear();
    await Promise.all(Object.values(this.queues).map((queue) => queue.close()));
  }

  private async checkOnce(): Promise<void> {
    if (!this.schedulerRemoved) {
      // The old purge schedule would keep a delayed job there for ever; the new prefix has its own.
      await this.queues['messaging-maintenance'].removeJobScheduler(PURGE_JOB);
      this.schedulerRemoved = true;
    }
    for (const name of QUEUE_NAMES) {
      if (this.drained.has(name) || this.stopped) continue;
      const queue = this.queues[name];
      const counts = await queue.getJobCounts(...UNFINISHED);
      const unfinished = Object.values(counts).reduce((sum, count) => sum + count, 0);
      // Drains of other processes of this release are not old workers: counting them, none would ever stop.
      // (BullMQ lists a worker's connection name as `rawname`, `name` being the queue's.)
      const others = (await queue.getWorkers()).filter((client) => !String(client['rawname'] ?? client['name'] ?? '').includes(`:w:${DRAIN_WORKER}-`)).length;
      if (unfinished === 0 && others === 0) {
        await this.workers.get(name)?.close();
        this.workers.delete(name);
        this.drained.add(name);
        this.options.logger.info({ queue: name, prefix: this.options.prefix }, 'no job left under the old queue prefix; no longer looked at');
        if (this.done && this.timer !== null) clearInterval(this.timer);
      } else if (!this.workers.has(name)) {
        this.options.logger.info({ queue: name, prefix: this.options.prefix, unfinished, oldWorkers: others }, 'running the jobs left under the old queue prefix');
        this.workers.set(name, this.options.startWorker(name, this.options.prefix, this.workerName));
      }
    }
  }
}

/**
 * A queue that adds no job whose id the old prefix still holds: the dispatcher catching up after an
 * upgrade re-enqueues events an old release enqueued there, and two jobs of one delivery would run.
 */
export class QueueBesideLegacy<T> extends Queue<T> {
  constructor(name: QueueName, options: QueueOptions, private readonly legacy: LegacyQueueDrain | null) {
    super(name, options);
  }

  async legacyJob(jobId: string): Promise<Job | undefined> {
    return this.legacy?.job(this.name as QueueName, jobId);
  }

  override async add(...args: Parameters<Queue<T>['add']>): ReturnType<Queue<T>['add']> {
    const jobId = args[2]?.jobId;
    const held = jobId === undefined ? undefined : await this.legacyJob(jobId);
    return held === undefined ? super.add(...args) : (held as Awaited<ReturnType<Queue<T>['add']>>);
  }

  override async addBulk(...args: Parameters<Queue<T>['addBulk']>): ReturnType<Queue<T>['addBulk']> {
    if (this.legacy === null || this.legacy.done) return super.addBulk(...args);
    const [jobs] = args;
    const held = await Promise.all(jobs.map(async (job) => (job.opts?.jobId === undefined ? undefined : this.legacyJob(job.opts.jobId))));
    return super.addBulk(jobs.filter((_, index) => held[index] === undefined));
  }
}
