import { cpus, loadavg } from 'node:os';
import { benchAudit } from './audit.bench.js';
import { benchEventStore } from './event-store.bench.js';
import { benchInternalWrites } from './internal-writes.bench.js';
import { benchInvitations } from './invitations.bench.js';
import { benchReads } from './reads.bench.js';
import { benchEmbeddedReads } from './reads-embedded.bench.js';
import { CONCURRENCY, MEASURE_SECONDS, SCALE, WARMUP_SECONDS, logger } from './support/log.js';
import { watchPid } from './support/cpu.js';
import { runLoad } from './support/load.js';
import { startHello } from './support/processes.js';
import { type BenchRow, type HelloBaseline, formatTable } from './support/results.js';
import { benchWebhooks } from './webhooks.bench.js';

/**
 * `npm run bench`: every benchmark in sequence, each against a baseline measured in this run.
 * BENCH_SCALE (default 1) scales dataset sizes and measuring windows down for a quick run.
 * Logs and progress go to stderr (pino); the details and the table go to stdout.
 */
const runStarted = performance.now();
const loadAtStart = loadavg();
const readsCandidates = Math.max(100, Math.round(100_000 * SCALE));
const smallCandidates = Math.max(100, Math.round(1_000 * SCALE));
logger.info(
  { scale: SCALE, measureSeconds: MEASURE_SECONDS, warmupSeconds: WARMUP_SECONDS, concurrency: CONCURRENCY, readsCandidates, smallCandidates },
  `bench: scale ${SCALE}, HTTP loads of ${MEASURE_SECONDS}s (+${WARMUP_SECONDS}s warm-up) at concurrency ${CONCURRENCY}`,
);

const rows: BenchRow[] = [];
const sections: { title: string; lines: string[] }[] = [];

/** BENCH_ONLY=invitations,webhooks runs only the sections whose titles contain one of the words. */
const only = (process.env.BENCH_ONLY ?? '').split(',').map((word) => word.trim()).filter((word) => word !== '');

const section = async (title: string, work: () => Promise<{ rows: BenchRow[]; details: string[] }>): Promise<void> => {
  if (only.length > 0 && !only.some((word) => title.includes(word))) return;
  const started = performance.now();
  logger.info({ benchmark: title }, `=== ${title}`);
  try {
    const result = await work();
    rows.push(...result.rows);
    const seconds = (performance.now() - started) / 1000;
    sections.push({ title: `${title} (${seconds.toFixed(0)}s)`, lines: result.details });
  } catch (error) {
    logger.error({ err: error, benchmark: title }, `${title} failed`);
    rows.push({ name: `${title}: FAILED`, measured: '-', baseline: '-', ratio: null });
    sections.push({ title, lines: [`FAILED: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`] });
  }
};

const hello = await startHello();
const baseline: HelloBaseline = {
  measure: (name) => runLoad({
    name, baseUrl: hello.baseUrl, concurrency: CONCURRENCY, seconds: MEASURE_SECONDS, warmupSeconds: WARMUP_SECONDS,
    request: () => ({ method: 'GET', path: '/hello' }), cpu: [watchPid('server', hello.process.pid)],
  }),
};

// Children are killed on exit (support/processes.ts); databases and schemas of an interrupted run stay behind.
process.once('SIGINT', () => {
  logger.warn('interrupted: stopping children and exiting');
  process.exit(130);
});

try {
  await section('1. event store appends', async () => {
    const result = await benchEventStore((line) => logger.info({ benchmark: 'event store' }, line));
    return {
      rows: result.map((row) => ({
        name: `event store, ${row.name}`,
        measured: `${row.opsPerSec} appends/s`,
        baseline: `${row.baselineOpsPerSec} appends/s (raw INSERT)`,
        ratio: row.ratio,
      })),
      details: result.map((row) => {
        const perAppend = /(\d+) events? per append/.exec(row.name)?.[1] ?? '1';
        return `${row.name}: ${row.opsPerSec} appends/s = ${row.opsPerSec * Number(perAppend)} events/s; raw INSERT ${row.baselineOpsPerSec} appends/s; one append in flight`;
      }),
    };
  });
  await section('2. invitations', () => benchInvitations(baseline));
  await section(`3a. reads at ${smallCandidates} candidates`, () => benchReads(smallCandidates, baseline));
  await section(`3b. reads at ${readsCandidates} candidates`, () => benchReads(readsCandidates, baseline));
  await section(`3c. reads at ${smallCandidates} candidates, embedded`, () => benchEmbeddedReads(smallCandidates, baseline));
  await section('4. webhooks', () => benchWebhooks());
  await section('5. audit trail', () => benchAudit((line) => logger.info({ benchmark: 'audit' }, line)));
  await section('6. internal-application writes', () => benchInternalWrites());
} finally {
  await hello.stop();
}

const report = (): string => {
  const minutes = (performance.now() - runStarted) / 60_000;
  const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(' ');
  const out: string[] = [
    '', `Benchmark details (BENCH_SCALE=${SCALE}, HTTP concurrency ${CONCURRENCY}, ${MEASURE_SECONDS}s per load after ${WARMUP_SECONDS}s warm-up)`,
    `machine: ${cpus().length} cores, Node ${process.version}; load average at start ${load(loadAtStart)}, at end ${load(loadavg())} (other work on the machine shows here)`,
  ];
  for (const { title, lines } of sections) out.push('', `## ${title}`, ...lines.map((line) => `  ${line}`));
  out.push('', 'Results (ratio = measured / baseline, same run; above 1 is faster than the baseline)', '', formatTable(rows), '', `total run time ${minutes.toFixed(1)} min`, '');
  return out.join('\n');
};

process.stdout.write(report());
if (rows.some((row) => row.ratio === null)) process.exitCode = 1;
