import type { LoadResult } from './load.js';

/** One line of the final table: throughput measured and its baseline from the same run. */
export interface BenchRow {
  name: string;
  measured: string;
  baseline: string;
  /** measured / baseline (throughputs: above 1 is faster than the baseline). */
  ratio: number | null;
}

/** The Nest hello world, measured with the same load generator wherever a benchmark needs it. */
export interface HelloBaseline {
  measure(name: string): Promise<LoadResult>;
}

/** `182.8 req/s, p50 74 ms, p99 384 ms` */
export const httpCell = (load: LoadResult, label?: string): string =>
  `${load.perSecond} req/s${label ? ` ${label}` : ''} (p50 ${formatMs(load.p50Ms)}, p99 ${formatMs(load.p99Ms)})`;

const formatMs = (ms: number): string => (ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`);

/** Two decimals, or two significant digits below 0.1 so that small ratios do not all read 0.00. */
const formatRatio = (ratio: number | null): string => (ratio === null ? 'n/a' : ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2));

const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - text.length));

export const formatTable = (rows: readonly BenchRow[]): string => {
  const cells = rows.map((row) => [row.name, row.measured, row.baseline, formatRatio(row.ratio)]);
  const header = ['name', 'measured', 'baseline', 'ratio'];
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => (line[column] ?? '').length)));
  const line = (values: string[]) => `| ${values.map((value, column) => pad(value, widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...cells.map(line)].join('\n');
};
