import { pino, type Logger } from 'pino';

/** Structured logs (pino, JSON lines on stderr); results are printed as plain tables on stdout. */
export const logger: Logger = pino(
  { name: 'bench', level: process.env.LOG_LEVEL ?? 'info', base: undefined, timestamp: pino.stdTimeFunctions.isoTime },
  pino.destination({ fd: 2, sync: true }),
);

/** Dataset sizes and measuring windows shrink with BENCH_SCALE (default 1) for a quick run. */
export const SCALE = ((): number => {
  const raw = process.env.BENCH_SCALE;
  if (raw === undefined || raw === '') return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 10) throw new Error(`BENCH_SCALE must be a number in (0, 10], got "${raw}"`);
  return value;
})();

/** Seconds each HTTP load runs (after its warm-up): 10 at scale 1, never under 3. BENCH_SECONDS overrides. */
export const MEASURE_SECONDS = process.env.BENCH_SECONDS ? Number(process.env.BENCH_SECONDS) : Math.max(3, Math.min(10, 10 * SCALE));
export const WARMUP_SECONDS = Math.max(1, Math.min(2, MEASURE_SECONDS / 5));
/** In-flight requests of every HTTP load, the baseline's included. */
export const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/**
 * Redis for everything: queues get a unique prefix per run (QUEUE_PREFIX for the service processes),
 * rate-limit keys are per API key id; the run deletes what it wrote.
 */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export const randomSuffix = (): string => Math.random().toString(36).slice(2, 10);

export const round = (value: number, digits = 0): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/**
 * A progress reporter: a structured log line at most every 2 s (and at the end) with the count,
 * the rate and the ETA when the total is known.
 */
export const progress = (phase: string, unit: string, total: number | null) => {
  const started = performance.now();
  let last = started;
  return (done: number, final = false): void => {
    const now = performance.now();
    if (!final && now - last < 2000) return;
    last = now;
    const seconds = Math.max((now - started) / 1000, 0.001);
    const perSecond = done / seconds;
    const etaSeconds = total !== null && perSecond > 0 ? Math.max(0, (total - done) / perSecond) : null;
    const share = total ? ` (${((done / total) * 100).toFixed(1)}%)` : '';
    const eta = final ? `done in ${seconds.toFixed(1)}s` : etaSeconds === null ? 'eta ?' : `eta ${Math.round(etaSeconds)}s`;
    logger.info(
      { phase, done, total, [`${unit}PerSec`]: Math.round(perSecond), etaSeconds: etaSeconds === null ? null : round(etaSeconds, 1), elapsedSeconds: round(seconds, 1) },
      `${phase}: ${done}${total === null ? '' : `/${total}`} ${unit}${share}, ${Math.round(perSecond)} ${unit}/s, ${eta}`,
    );
  };
};

/** Runs `work` over `items` with at most `limit` in flight; keeps order of results. */
export const mapLimit = async <T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> => {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  });
  await Promise.all(lanes);
  return results;
};
