import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { WEBHOOK_EVENT_NAMES } from '#domain';
import {
  DeliveryLog, WEBHOOK_CONCURRENCY, WEBHOOK_QUEUE, WebhookDeliveries, createWebhookWorker, keepJobs, migrateMessagingTables, type DeliveryOutcome,
  type WebhookEnvelope, type WebhookJob, type WebhookSettings,
} from '#messaging';
import { systemClock } from '#platform';
import { type CpuShares, type CpuWatch, describeCpu, startCpuMeter, watchPid, watchPostgresBackends, watchRedis } from './support/cpu.js';
import { DATABASE_URL, REDIS_URL, SCALE, logger, mapLimit, progress, randomSuffix, round } from './support/log.js';
import { startReceiver } from './support/processes.js';
import type { BenchRow } from './support/results.js';

/** The product's default (WEBHOOK_CONCURRENCY) unless BENCH_WEBHOOK_CONCURRENCY says otherwise; the baseline runs at the same. */
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? WEBHOOK_CONCURRENCY);
const WORKER = 'bench process (worker)';
/** The product's share of the CPU: the worker, its PostgreSQL backends and Redis (not the receiver's, nor other work's). */
const PRODUCT_CPU = [WORKER, 'postgres backends', 'redis-server'];
const TIMEOUT_MS = 10 * 60_000;

interface Drained {
  seconds: number;
  outcomes: Record<string, number>;
  cpu: CpuShares;
}

/** Resolves once `count` jobs have finished on the worker (any outcome), with a progress line and the CPU used meanwhile. */
const drained = async (createWorker: () => Worker, count: number, phase: string, unit: string, watches: CpuWatch[]): Promise<Drained & { worker: Worker }> => {
  const stopCpu = await startCpuMeter(watches, WORKER);
  // Listeners are attached in the same tick as the worker starts: no completion goes unseen.
  const worker = createWorker();
  const result = await new Promise<Omit<Drained, 'cpu'>>((resolve, reject) => {
    const started = performance.now();
    const report = progress(phase, unit, count);
    const outcomes: Record<string, number> = {};
    let finished = 0;
    const timer = setTimeout(() => reject(new Error(`${phase}: only ${finished}/${count} jobs finished in ${TIMEOUT_MS / 1000}s`)), TIMEOUT_MS);
    const done = (outcome: string) => {
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      finished += 1;
      report(finished);
      if (finished === count) {
        clearTimeout(timer);
        report(finished, true);
        resolve({ seconds: (performance.now() - started) / 1000, outcomes });
      }
    };
    worker.on('completed', (_job, outcome: unknown) => done(typeof outcome === 'string' ? outcome : 'completed'));
    worker.on('failed', () => done('failed'));
  });
  return { ...result, cpu: await stopCpu(), worker };
};

/** CPU milliseconds per job of the worker, its PostgreSQL backends and Redis. */
const cpuMsPerJob = (cpu: CpuShares, perSecond: number): number =>
  round((PRODUCT_CPU.reduce((cores, label) => cores + (cpu[label] ?? 0), 0) * 1000) / Math.max(perSecond, 0.001), 3);

const deleteKeys = async (redis: Redis, prefix: string): Promise<void> => {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
};

/**
 * Deliveries per second of one webhook worker (the product's, on the real delivery log in
 * PostgreSQL) to a loopback receiver, against a BullMQ worker whose processor returns at once.
 * Both drain a queue filled beforehand, with the same concurrency, Redis and job options.
 */
export async function benchWebhooks(): Promise<{ rows: BenchRow[]; details: string[] }> {
  const count = Math.max(500, Math.round(10_000 * SCALE));
  const receiver = await startReceiver();
  const schema = `bench_webhooks_${randomSuffix()}`;
  const prefix = `bench-${randomSuffix()}`;
  const application = `bench-webhooks-${randomSuffix()}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10, application_name: application });
  pool.on('error', (error) => logger.debug({ err: error }, 'idle connection failed'));
  const connections = [0, 1, 2].map(() => new Redis(REDIS_URL, { maxRetriesPerRequest: null }));
  const [queueConnection, workerConnection, baselineConnection] = connections as [Redis, Redis, Redis];
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const log = new DeliveryLog(pool, schema);
    await migrateMessagingTables(pool, schema);
    const workspaceId = `ws_bench_${randomSuffix()}`;
    const settings: WebhookSettings = { url: receiver.url, events: [...WEBHOOK_EVENT_NAMES], enabled: true, secrets: ['whsec_bench_current'], enabledAt: null };
    const getSigningSecrets = async (): Promise<WebhookSettings> => settings;
    const queue = new Queue<WebhookJob>(WEBHOOK_QUEUE, { connection: queueConnection, prefix });
    closers.push(() => queue.close());
    const deliveries = new WebhookDeliveries({ log, queue, clock: systemClock, getSigningSecrets });

    // The dispatcher's part, done beforehand: a delivery row and a job per event.
    const enqueueReport = progress('webhooks: creating deliveries', 'deliveries', count);
    let enqueued = 0;
    await mapLimit(Array.from({ length: count }, (_, index) => index), 16, async (index) => {
      const envelope: WebhookEnvelope = {
        id: randomUUID(), event: 'candidateCreated', createdAt: new Date().toISOString(), workspaceId,
        data: { candidate: { id: `cand_bench${index}`, email: `candidate-${index}@bench.example.com`, firstName: 'Bench', surname: `Candidate ${index}` } },
      };
      await deliveries.deliverEvent(envelope, settings);
      enqueued += 1;
      enqueueReport(enqueued);
    });
    enqueueReport(enqueued, true);

    logger.info({ count, concurrency: CONCURRENCY }, `webhooks: one worker draining ${count} deliveries to ${receiver.url}...`);
    const watches = [watchPid('receiver', receiver.process.pid), watchPostgresBackends(pool, { application }), watchRedis()];
    const real = await drained(() => {
      const worker = createWebhookWorker({
        connection: workerConnection, prefix, log, clock: systemClock, getSigningSecrets, allowInsecure: true, backoffMs: 1_000, concurrency: CONCURRENCY,
        disableWebhook: async () => undefined, logger: logger.child({ phase: 'webhook worker' }),
      });
      closers.push(() => worker.close());
      return worker as unknown as Worker;
    }, count, 'webhooks: delivering', 'deliveries', watches);
    await real.worker.close();
    const succeeded = Number((await pool.query<{ count: string }>(`SELECT count(*) AS count FROM "${schema}".webhook_deliveries WHERE status = 'succeeded'`)).rows[0]?.count ?? 0);

    const noopQueue = new Queue('bench-noop', { connection: queueConnection, prefix });
    closers.push(() => noopQueue.close());
    const fillReport = progress('webhooks baseline: adding no-op jobs', 'jobs', count);
    for (let offset = 0; offset < count; offset += 1_000) {
      const size = Math.min(1_000, count - offset);
      await noopQueue.addBulk(Array.from({ length: size }, (_, index) => ({
        name: 'noop', data: { deliveryId: randomUUID() }, opts: { jobId: `noop-${offset + index}`, ...keepJobs },
      })));
      fillReport(offset + size);
    }
    fillReport(count, true);
    const baseline = await drained(() => {
      const noopWorker = new Worker('bench-noop', async () => 'noop', { connection: baselineConnection, prefix, concurrency: CONCURRENCY });
      closers.push(() => noopWorker.close());
      return noopWorker;
    }, count, 'webhooks baseline: BullMQ no-op', 'jobs', watches);
    await baseline.worker.close();

    const realPerSecond = count / real.seconds;
    const baselinePerSecond = count / baseline.seconds;
    const outcomes = real.outcomes as Partial<Record<DeliveryOutcome | 'failed', number>>;
    if (succeeded !== count) logger.warn({ succeeded, count, outcomes }, 'webhooks: not every delivery succeeded');
    return {
      rows: [{
        name: `webhook deliveries, 1 worker (concurrency ${CONCURRENCY})`,
        measured: `${round(realPerSecond, 1)} deliveries/s, ${cpuMsPerJob(real.cpu, realPerSecond)} ms CPU/delivery`,
        baseline: `${round(baselinePerSecond, 1)} jobs/s, ${cpuMsPerJob(baseline.cpu, baselinePerSecond)} ms CPU/job (BullMQ no-op)`,
        ratio: realPerSecond / baselinePerSecond,
      }],
      details: [
        `${count} deliveries to a loopback receiver in ${real.seconds.toFixed(1)}s = ${round(realPerSecond, 1)}/s; outcomes ${JSON.stringify(outcomes)}; ${succeeded} rows succeeded in the log`,
        `  ${describeCpu(real.cpu, cpus().length)}`,
        `  ${cpuMsPerJob(real.cpu, realPerSecond)} ms CPU per delivery (worker, PostgreSQL backends, Redis; not the receiver)`,
        `${count} no-op jobs in ${baseline.seconds.toFixed(1)}s = ${round(baselinePerSecond, 1)}/s (same Redis, prefix, concurrency and job options)`,
        `  ${describeCpu(baseline.cpu, cpus().length)}`,
        `  ${cpuMsPerJob(baseline.cpu, baselinePerSecond)} ms CPU per job (worker, Redis)`,
        'per delivery: read the row, sign, POST (keep-alive sockets pooled per checked address), write the attempt to the row, BullMQ bookkeeping; ' +
          'the reads and the attempt writes of concurrent jobs go to PostgreSQL as one statement each; ' +
          'signing secrets come from a constant here (the product opens them once per process)',
      ],
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await deleteKeys(queueConnection, prefix).catch((error: unknown) => logger.warn({ err: error }, 'webhooks: cleaning Redis failed'));
    await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch((error: unknown) => logger.warn({ err: error }, 'webhooks: dropping the schema failed'));
    await pool.end();
    await receiver.stop();
  }
}
