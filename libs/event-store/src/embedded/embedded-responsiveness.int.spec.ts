import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { NewEvent } from '../event-store.port.js';
import { createEmbeddedEventStore, type EmbeddedEventStore } from './embedded-event-store.js';

// About a second on this machine at its fastest (600 x 10,000 once took 448 ms there, short of the
// 450 ms the test needs to show anything), a few seconds at its slowest.
const HEAVY_QUERY = 'SELECT count(*) AS n FROM generate_series(1, 1500) a CROSS JOIN generate_series(1, 10000) b WHERE (a + b) % 7 = 0';
const TICK_MS = 5;
// Lenient against a loaded CI machine, far below what a blocked loop shows (the whole query time).
const MAX_LAG_MS = 150;

function event(index: number): NewEvent {
  const id = randomUUID();
  return { id, type: 'Loaded', data: { index }, metadata: { correlationId: id, causationId: null, actor: 'system', requestId: id, time: '2024-01-01T00:00:00.000Z' } };
}

/** Runs work while a timer ticks on this thread; the timer's lateness is the event loop's lag. */
async function measure<T>(work: () => Promise<T>): Promise<{ result: T; elapsedMs: number; ticks: number; maxLagMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), TICK_MS);
  histogram.enable();
  const started = performance.now();
  try {
    const result = await work();
    return { result, elapsedMs: performance.now() - started, ticks, maxLagMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
    clearInterval(timer);
  }
}

describe('embedded PGlite keeps the main thread responsive', () => {
  let dataDir = '';
  let embedded: EmbeddedEventStore;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'es-responsive-'));
    embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
  }, 30_000);

  afterAll(async () => {
    await embedded.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('while a heavy query runs', async () => {
    const { result, elapsedMs, ticks, maxLagMs } = await measure(() => embedded.database.pool.query<{ n: string }>(HEAVY_QUERY));

    // Pairs (a, b) of 1..1500 x 1..10000 with a + b divisible by 7: the query really ran to the end.
    expect(result.rows).toStrictEqual([{ n: '2142856' }]);
    // The query must be heavy enough that running it on this thread would blow the lag budget.
    expect(elapsedMs).toBeGreaterThan(3 * MAX_LAG_MS);
    expect(maxLagMs).toBeLessThan(MAX_LAG_MS);
    expect(ticks).toBeGreaterThan(elapsedMs / TICK_MS / 3);
  }, 30_000);

  it('while many appends run', async () => {
    const appends = Array.from({ length: 400 }, (_, index) =>
      () => embedded.store.appendToStream(`load-${index % 20}`, [event(index)], { expectedRevision: 'any' }));

    const { maxLagMs } = await measure(() => Promise.all(appends.map((append) => append())));

    expect(await embedded.store.readAll({ after: null, maxCount: 1000 })).toHaveLength(400);
    expect(maxLagMs).toBeLessThan(MAX_LAG_MS);
  }, 30_000);
});
