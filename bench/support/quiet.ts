import { processCpuSeconds } from './cpu.js';
import { logger } from './log.js';
import { type Service, sleep } from './processes.js';

interface Health {
  eventStore: { headPosition: string | null };
  readModels: Record<string, string | null>;
  queues: Record<string, { waiting: number; active: number }> | null;
}

/** Below this share of a core over a sampling window, the service counts as idle. */
const IDLE_CORES = 0.05;
const WINDOW_MS = 250;

/**
 * Waits until what an earlier load left behind is done: every read model at the log head, no queue
 * job waiting or running (delayed ones, the maintenance timers, do not count) and the server's
 * process idle over a window. A latency measured next then has nothing queued in front of it.
 * Gives up after `timeoutMs` with a warning (the measurement still runs, and says so in the log).
 */
export const waitUntilQuiet = async (service: Service, timeoutMs = 60_000): Promise<number> => {
  const started = performance.now();
  const health = async (): Promise<Health> => {
    const response = await fetch(`${service.internalUrl}/internal/health`, { headers: { authorization: `Bearer ${service.internalToken}` } });
    return ((await response.json()) as { data: Health }).data;
  };
  const pid = service.process.pid;
  for (;;) {
    const { eventStore, readModels, queues } = await health();
    const caughtUp = Object.values(readModels).every((position) => position === eventStore.headPosition);
    const queued = Object.values(queues ?? {}).reduce((sum, queue) => sum + queue.waiting + queue.active, 0);
    const before = pid === undefined ? null : processCpuSeconds(pid);
    await sleep(WINDOW_MS);
    const after = pid === undefined ? null : processCpuSeconds(pid);
    const cores = before === null || after === null ? 0 : (after - before) / (WINDOW_MS / 1000);
    const waited = performance.now() - started;
    if (caughtUp && queued === 0 && cores < IDLE_CORES) return waited / 1000;
    if (waited > timeoutMs) {
      logger.warn({ caughtUp, queued, cores }, `the service was still busy after ${(timeoutMs / 1000).toFixed(0)}s; measuring anyway`);
      return waited / 1000;
    }
  }
};
