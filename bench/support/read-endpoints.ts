import { CONCURRENCY, MEASURE_SECONDS, WARMUP_SECONDS } from './log.js';
import type { CpuWatch } from './cpu.js';
import { type FeedMiddle, feedWalkKeys, middleOfFeed } from './events-feed.js';
import { CredentialPool, type LoadResult, getsWith, runLoad } from './load.js';
import { type BenchRow, type HelloBaseline, httpCell } from './results.js';

export const READ_PAGE_LIMIT = 50;

/** A load's `check`: the answer is a full page of a list holding `rows` rows (not an empty table). */
export const fullPageOf = (rows: number) => (body: string): boolean =>
  (JSON.parse(body) as { data: unknown[] }).data.length === Math.min(READ_PAGE_LIMIT, rows);

/** Stands for a cursor from the middle of the seeded feed: replaced in the request, kept in the row's name. */
const MIDDLE_CURSOR = '<middle of the feed>';

/**
 * The list endpoints issue 7 measures, and the events feed: its first page, and a page polled from a
 * cursor in its middle (how integrators follow it), in front of a seeded workspace.
 */
export const READ_PATHS = [
  `/v1/results?limit=${READ_PAGE_LIMIT}`,
  `/v1/candidates?limit=${READ_PAGE_LIMIT}`,
  `/v1/events?limit=${READ_PAGE_LIMIT}`,
  `/v1/events?limit=${READ_PAGE_LIMIT}&cursor=${MIDDLE_CURSOR}`,
];

/** Keys each endpoint's load gets: 100 requests each (120 a minute per key, not configurable). */
const loadKeys = (): number => Math.ceil(((MEASURE_SECONDS + WARMUP_SECONDS) * 10_000) / 100);

/**
 * Keys a seeded workspace of `candidates` needs for the list endpoints: enough for each at up to
 * 10,000 requests/s (the embedded store served 7,300 and ran the keys of 4,000 out), and for the
 * walk that finds the middle of the events feed.
 */
export const readKeysNeeded = (candidates: number): number => loadKeys() * READ_PATHS.length + feedWalkKeys(candidates) + 10;

/**
 * Finds a cursor in the middle of the events feed (and fails on an empty feed), then loads each
 * list endpoint in turn after the Nest hello world of the same run, with fresh keys from
 * `credentials` (120 requests a minute each); every answer must be a full page.
 */
export const loadReadEndpoints = async (options: {
  label: string;
  baseUrl: string;
  credentials: readonly string[];
  candidates: number;
  cpu: readonly CpuWatch[];
  hello: HelloBaseline;
}): Promise<{ rows: BenchRow[]; loads: LoadResult[]; baseline: LoadResult; feed: FeedMiddle; spareCredentials: string[] }> => {
  const walkKeys = feedWalkKeys(options.candidates);
  const feed = await middleOfFeed(options.baseUrl, new CredentialPool(options.credentials.slice(-walkKeys)));
  const loadCredentials = options.credentials.slice(0, -walkKeys);
  const baseline = await options.hello.measure(`${options.label} baseline: Nest hello world`);
  // Each endpoint has its own share of the keys: a fast first one cannot leave the next without any.
  const share = Math.floor(loadCredentials.length / READ_PATHS.length);
  const loads: LoadResult[] = [];
  const pools: CredentialPool[] = [];
  for (const [index, name] of READ_PATHS.entries()) {
    const path = name.replace(MIDDLE_CURSOR, feed.cursor);
    const credentials = new CredentialPool(loadCredentials.slice(index * share, (index + 1) * share));
    pools.push(credentials);
    loads.push(await runLoad({
      name: `GET ${name} @ ${options.label}`,
      baseUrl: options.baseUrl,
      concurrency: CONCURRENCY,
      seconds: MEASURE_SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      cpu: [...options.cpu],
      request: getsWith(credentials, path),
      check: fullPageOf(options.candidates),
    }));
  }
  const rows = loads.map((load) => ({
    name: load.name,
    measured: httpCell(load),
    baseline: httpCell(baseline, 'Nest hello'),
    ratio: load.perSecond / baseline.perSecond,
  }));
  return { rows, loads, baseline, feed, spareCredentials: pools.flatMap((pool) => pool.unused()) };
};
