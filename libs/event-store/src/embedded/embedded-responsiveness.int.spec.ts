import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { NewEvent } from '../event-store.port.js';
import { createEmbeddedEventStore, type EmbeddedEventStore } from './embedded-event-store.js';

// About a second on this machine at its fastest (600 x 10,000 once took 448 ms there, short of the
// 450 ms the test needs to show anything), a few seconds at its slowest.
const HEAVY_QUERY = 'SELECT count(*) AS n FROM generate_series(1, 1500) a CROSS JOIN generate_series(1, 10000) b WHERE (a + b) % 7 = 0';
const TICK_MS = 5;
/**
 * The share of the time this thread's event loop may be busy while the store works. A store working on
 * this thread keeps it busy the whole time (1.0); in its worker thread it left under 0.02 during the
 * query. Busy time grows with the machine's load only where this thread has work of its own (time it
 * waits for a core while running counts as busy), unlike a timer's lateness, which any other process
 * grows (a CI run saw a timer 300 ms late, the query in its worker thread, every Jest worker busy).
 */
const MAX_BUSY_SHARE = 0.6;
const APPENDS_MAX_BUSY_SHARE = 0.9;

function event(index: number): NewEvent {
  const id = randomUUID();
  return { id, type: 'Loaded', data: { index }, metadata: { correlationId: id, causationId: null, actor: 'system', requestId: id, time: '2024-01-01T00:00:00.000Z' } };
}

/** Runs work while a timer ticks on this thread; says how busy the thread's event loop was meanwhile. */
async function measure<T>(work: () => Promise<T>): Promise<{ result: T; elapsedMs: number; busyShare: number }> {
  const timer = setInterval(() => undefined, TICK_MS);
  const before = performance.eventLoopUtilization();
  const started = performance.now();
  try {
    const result = await work();
    const elapsedMs = performance.now() - started;
    return { result, elapsedMs, busyShare: performance.eventLoopUtilization(before).utilization };
  } finally {
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
    const { result, elapsedMs, busyShare } = await measure(() => embedded.database.pool.query<{ n: string }>(HEAVY_QUERY));

    // Pairs (a, b) of 1..1500 x 1..10000 with a + b divisible by 7: the query really ran to the end.
    expect(result.rows).toStrictEqual([{ n: '2142856' }]);
    expect(elapsedMs).toBeGreaterThan(450);
    expect(busyShare).toBeLessThan(MAX_BUSY_SHARE);
  }, 30_000);

  it('the measure itself: work done on this thread shows as busy', async () => {
    // What the store would show if PGlite ran on this thread: the loop busy from start to end.
    const { busyShare } = await measure(async () => {
      await new Promise((resolveSoon) => setTimeout(resolveSoon, 10));
      const until = performance.now() + 500;
      while (performance.now() < until) { /* busy on this thread */ }
    });
    expect(busyShare).toBeGreaterThan(0.9);
  }, 30_000);

  it('while many appends run', async () => {
    const appends = Array.from({ length: 400 }, (_, index) =>
      () => embedded.store.appendToStream(`load-${index % 20}`, [event(index)], { expectedRevision: 'any' }));

    const { busyShare } = await measure(() => Promise.all(appends.map((append) => append())));

    expect(await embedded.store.readAll({ after: null, maxCount: 1000 })).toHaveLength(400);
    // This thread has work of its own here (400 appends made and answered): 0.3-0.35 on an idle
    // machine, 0.62 once in CI, where time a busy thread waits for a core counts as busy. A store on
    // this thread keeps it at 1.0 (the control above shows such work above 0.9).
    expect(busyShare).toBeLessThan(APPENDS_MAX_BUSY_SHARE);
  }, 30_000);
});
