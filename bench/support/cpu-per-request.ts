import type { LoadResult } from './load.js';
import { round } from './log.js';

/** CPU milliseconds per request of the service's own processes (server, database backends, Redis), not the load generator's. */
export const cpuMsPerRequest = (load: LoadResult): number => {
  let cores = 0;
  for (const [label, value] of Object.entries(load.cpu)) if (label !== 'machine' && label !== 'load generator') cores += value;
  return round((cores * 1000) / Math.max(load.perSecond, 0.001), 2);
};

/** `412 req/s (p50 35 ms, p99 80 ms), 2.1 ms CPU/request` */
export const httpCpuCell = (load: LoadResult, label?: string): string =>
  `${load.perSecond} req/s${label ? ` ${label}` : ''} (p50 ${load.p50Ms} ms, p99 ${load.p99Ms} ms), ${cpuMsPerRequest(load)} ms CPU/request`;
