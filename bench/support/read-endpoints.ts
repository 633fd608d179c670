import { CONCURRENCY, MEASURE_SECONDS, WARMUP_SECONDS } from './log.js';
import type { CpuWatch } from './cpu.js';
import { CredentialPool, type LoadResult, runLoad } from './load.js';
import { type BenchRow, type HelloBaseline, httpCell } from './results.js';

export const READ_PAGE_LIMIT = 50;

/** The list endpoints issue 7 measures, in front of a seeded workspace. */
export const READ_PATHS = [`/v1/results?limit=${READ_PAGE_LIMIT}`, `/v1/candidates?limit=${READ_PAGE_LIMIT}`];

/**
 * Keys a seeded workspace needs for the list endpoints: 100 requests each (the limit is 120 a minute
 * per key, not configurable), enough for every endpoint at up to 10,000 requests/s (the embedded
 * store served 7,300 and ran the keys of 4,000 out).
 */
export const readKeysNeeded = (): number => Math.ceil(((MEASURE_SECONDS + WARMUP_SECONDS) * 10_000 * READ_PATHS.length) / 100) + 10;

/**
 * Loads each list endpoint in turn after the Nest hello world of the same run, with fresh keys from
 * `credentials` (120 requests a minute each); every answer must be a full page.
 */
export const loadReadEndpoints = async (options: {
  label: string;
  baseUrl: string;
  credentials: readonly string[];
  candidates: number;
  cpu: readonly CpuWatch[];
  hello: HelloBaseline;
}): Promise<{ rows: BenchRow[]; loads: LoadResult[]; baseline: LoadResult }> => {
  const baseline = await options.hello.measure(`${options.label} baseline: Nest hello world`);
  // Each endpoint has its own share of the keys: a fast first one cannot leave the next without any.
  const share = Math.floor(options.credentials.length / READ_PATHS.length);
  const loads: LoadResult[] = [];
  for (const [index, path] of READ_PATHS.entries()) {
    const credentials = new CredentialPool(options.credentials.slice(index * share, (index + 1) * share));
    loads.push(await runLoad({
      name: `GET ${path} @ ${options.label}`,
      baseUrl: options.baseUrl,
      concurrency: CONCURRENCY,
      seconds: MEASURE_SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      cpu: [...options.cpu],
      request: () => {
        const authorization = credentials.next();
        return authorization === null ? null : { method: 'GET', path, headers: { authorization } };
      },
      // A full page proves the read models answer, not an empty table.
      check: (body) => (JSON.parse(body) as { data: unknown[] }).data.length === Math.min(READ_PAGE_LIMIT, options.candidates),
    }));
  }
  const rows = loads.map((load) => ({
    name: load.name,
    measured: httpCell(load),
    baseline: httpCell(baseline, 'Nest hello'),
    ratio: load.perSecond / baseline.perSecond,
  }));
  return { rows, loads, baseline };
};
