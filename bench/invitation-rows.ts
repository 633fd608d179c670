import type { FirstAfterRestart } from './first-after-restart.bench.js';
import type { GrowthResult } from './invitation-growth.bench.js';
import type { InvitationRun, foldCosts } from './invitations.bench.js';
import { cpuMsPerRequest, httpCpuCell } from './support/cpu-per-request.js';
import { CONCURRENCY, round } from './support/log.js';
import { type LoadResult, describeLoad } from './support/load.js';
import { type BenchRow, httpCell } from './support/results.js';

/** A row whose target is a bound (latency, count) rather than a baseline: ratio = bound / measured, 1 or more meets it. */
const boundRow = (name: string, measured: number, unit: string, bound: number, boundLabel: string): BenchRow => ({
  name, measured: `${measured} ${unit}`, baseline: boundLabel, ratio: measured > 0 ? bound / measured : null,
});

export const invitationRows = (input: {
  runs: InvitationRun[];
  baseline: LoadResult;
  /** The plain design's invitations on the PostgreSQL server of the same run (null: not measured). */
  plain: LoadResult | null;
  folds: ReturnType<typeof foldCosts>;
  growth: GrowthResult | null;
  restarts: { label: string; result: FirstAfterRestart }[];
  keys: number;
}): { rows: BenchRow[]; details: string[] } => {
  const { runs, baseline, plain, folds, growth, restarts } = input;
  const place = (run: InvitationRun) => (run.assessments === 1 ? 'one assessment' : `spread over ${run.assessments} assessments`);
  const rows: BenchRow[] = runs.map((run) => ({
    name: `invitations, standalone on ${run.label}, 1 address/request, ${place(run)}`,
    measured: httpCpuCell(run.load),
    baseline: httpCell(baseline, 'Nest hello'),
    ratio: run.load.perSecond / baseline.perSecond,
  }));
  const onPostgres = runs.find((run) => run.label === 'PostgreSQL server' && run.assessments === 1);
  if (plain && onPostgres) {
    rows.push({
      name: 'invitations c16, 1 address/request, PostgreSQL, against the plain design (target ≥ 0.7)',
      measured: httpCpuCell(onPostgres.load),
      baseline: httpCpuCell(plain, 'plain design'),
      ratio: onPostgres.load.perSecond / plain.perSecond,
    });
  }
  for (const run of runs.filter((candidate) => candidate.assessments === 1)) {
    rows.push(boundRow(`one invitation at a time, p50, ${run.label} (${cpuMsPerRequest(run.sequential)} ms CPU/request)`, run.sequential.p50Ms, 'ms', 4, 'target ≤ 4 ms'));
  }
  const fold = folds.find((entry) => entry.size === 10_000);
  if (fold) rows.push(boundRow(`fold of an assessment holding 10,000 invitations, CPU time (wall ${round(fold.ms, 1)} ms)`, round(fold.cpuMs, 1), 'ms', 50, 'target ≤ 50 ms'));
  if (growth) {
    rows.push(boundRow('one request inviting 100 new people, embedded, p50', growth.hundredPeopleP50Ms, 'ms', 100, 'target ≤ 100 ms'));
    rows.push(boundRow('Redis commands per invitation (e-mail included)', growth.redisCommandsPerInvitation, 'commands', 10, 'target ≤ 10'));
  }
  // Against the small assessment's first invitation after a restart of the same run; ratio = 3 × small / measured: 1 or more meets ≤ 3×.
  for (const { label, result } of restarts) {
    rows.push({
      name: `first invitation after a restart (assessment of 1 invitation) against a warm one, ${label}`,
      measured: `${result.smallMs} ms`,
      baseline: `${result.warmMs} ms warm (target ≤ 3×)`,
      ratio: result.smallMs > 0 ? (3 * result.warmMs) / result.smallMs : null,
    });
    for (const [kind, measured] of [['', result.bigMs], [', state_snapshots emptied', result.bigWithoutSnapshotMs]] as const) {
      rows.push({
        name: `first invitation after a restart, assessment of 3,000 invitations${kind}, ${label}`,
        measured: `${measured} ms`,
        baseline: `${result.smallMs} ms (1 invitation; target ≤ 3×)`,
        ratio: measured > 0 ? (3 * result.smallMs) / measured : null,
      });
    }
  }
  const details = [
    ...runs.flatMap((run) => [
      `${run.label}, ${place(run)}: set-up through the service (workspace + ${input.keys} keys + ${run.assessments} assessment(s)) ${run.setupSeconds.toFixed(1)}s`,
      `${run.label}, ${place(run)}: concurrency ${CONCURRENCY}: ${describeLoad(run.load)}`,
      `${run.label}, ${place(run)}: invitations completed in each second: ${run.load.perSecondTimeline.join(' ')}`,
      `${run.label}, ${place(run)}: one at a time:  ${describeLoad(run.sequential)}`,
    ]),
    `Nest hello world: ${describeLoad(baseline)}`,
    ...(plain ? [`plain design (node:http + pg, one Redis round trip and one transaction a request) on the same PostgreSQL: ${describeLoad(plain)}`] : []),
    'one assessment: its decisions are serialized in the process and decided in groups (group commit, one transaction per group)',
    `folding an assessment stream as a decision loads it (foldAssessment, median of 3, in this process): ${folds.map((entry) => `${entry.size} invitations ${entry.ms.toFixed(1)} ms (CPU ${entry.cpuMs.toFixed(1)} ms)`).join(', ')}`,
    `the same events one at a time (evolveAssessment): ${folds.map((entry) => `${entry.size} invitations ${entry.oneAtATime.ms.toFixed(1)} ms (CPU ${entry.oneAtATime.cpuMs.toFixed(1)} ms)`).join(', ')}`,
    ...(growth?.details ?? []),
    ...restarts.flatMap(({ result }) => result.details),
  ];
  return { rows, details };
};
