import pg from 'pg';
import { Random } from './settings.js';

/** The faults a deployment can suffer, each injected by the test itself (kill -9, pg_terminate_backend, a Redis restart). */
export type FaultKind = 'kill-api' | 'kill-worker' | 'kill-internal' | 'terminate-connections' | 'restart-redis';

export interface FaultInjector {
  /** Injects one fault and returns once the deployment has what it lost back (a process restarted on its port, Redis answering). */
  inject(kind: FaultKind, random: Random): Promise<string>;
}

/** One fault as it happened, in the run's time (ms): from its injection until what it took was back. */
export interface FaultWindow {
  kind: FaultKind;
  detail: string;
  startedAt: number;
  /** null while the fault is under way. */
  endedAt: number | null;
  /** The workload's operations done when it was injected. */
  atOperation: number;
}

/**
 * After a fault is over, processes still reconnect (ioredis backs off, BullMQ workers resume, a pool
 * replaces its terminated connections): requests answered 5xx or dropped this long after it are the
 * fault's doing. Outside every window (and its grace) such an answer stays a finding.
 */
export const FAULT_GRACE_MS = 5_000;

/** The faults of one run, shared by the recorder (which tolerates and retries what they cost) and the checks. */
export class FaultLog {
  readonly windows: FaultWindow[] = [];

  /** Whether a request that ran from `startedAt` to `finishedAt` met a fault (or its grace). */
  covers(startedAt: number, finishedAt: number): boolean {
    return this.windows.some((window) => window.startedAt <= finishedAt && (window.endedAt === null || startedAt <= window.endedAt + FAULT_GRACE_MS));
  }

  /** Redis restarts that fell between two moments: the idempotency records held in Redis are lost with them (docs/operations.md). */
  /**
   * The Redis restarts under way at any time from `from` to `to`: from its injection (the old server
   * still answers for a moment) until Redis answers again. A record written in that time to the
   * server being stopped is lost with it, so a request that began during a restart counts too.
   */
  redisRestartsBetween(from: number, to: number): FaultWindow[] {
    return this.windows.filter((window) => window.kind === 'restart-redis' && window.startedAt <= to && (window.endedAt ?? Number.POSITIVE_INFINITY) >= from);
  }

  summary(): string {
    if (this.windows.length === 0) return '  faults: none';
    return `  faults: ${this.windows.map((window) => `${window.kind} at operation ${window.atOperation} (${window.detail}, `
      + `${window.endedAt === null ? 'not over' : `${((window.endedAt - window.startedAt) / 1000).toFixed(1)} s`})`).join('; ')}`;
  }
}

const FAULT_SEED_SALT = 0x5eed_fa17;

/**
 * Each kind once, an API process and the connections twice, in an order and at moments (counted in
 * operations, between a tenth and three quarters of the workload) drawn from the seed.
 */
export const planFaults = (seed: number, operations: number): { kind: FaultKind; atOperation: number }[] => {
  const random = new Random((seed ^ FAULT_SEED_SALT) >>> 0);
  const kinds: FaultKind[] = random.sample(['kill-api', 'kill-api', 'kill-worker', 'kill-internal', 'terminate-connections', 'terminate-connections', 'restart-redis'], 7);
  const moments = kinds.map(() => random.int(Math.floor(operations * 0.1), Math.floor(operations * 0.75))).sort((a, b) => a - b);
  return kinds.map((kind, index) => ({ kind, atOperation: moments[index] as number }));
};

/**
 * Runs the plan beside the workload: waits for each fault's moment, injects it, records its window.
 * Faults do not overlap; a fault whose moment the workload has passed is injected at once.
 */
export const runFaults = async (
  seed: number, plan: { kind: FaultKind; atOperation: number }[], injector: FaultInjector, log: FaultLog,
  progress: { done: number; finished: boolean },
): Promise<void> => {
  const random = new Random((seed ^ (FAULT_SEED_SALT * 3)) >>> 0);
  for (const { kind, atOperation } of plan) {
    while (progress.done < atOperation && !progress.finished) await new Promise((resolve) => setTimeout(resolve, 50));
    await injectFault(injector, log, kind, random, progress.done);
  }
};

/** One fault, its window recorded in the log from its injection until it is over. */
export const injectFault = async (injector: FaultInjector, log: FaultLog, kind: FaultKind, random: Random, atOperation: number): Promise<FaultWindow> => {
  const window: FaultWindow = { kind, detail: '', startedAt: Date.now(), endedAt: null, atOperation };
  log.windows.push(window);
  try {
    window.detail = await injector.inject(kind, random);
  } finally {
    window.endedAt = Date.now();
  }
  process.stderr.write(`concurrency tier: fault ${kind} at operation ${atOperation}: ${window.detail}, over in ${window.endedAt - window.startedAt} ms\n`);
  return window;
};

/** pg_terminate_backend on every backend of that database (the service's connections), none of any other; returns how many. */
export const terminateConnections = async (databaseUrl: string): Promise<number> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ terminated: boolean }>(
      'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.filter((row) => row.terminated).length;
  } finally {
    await client.end();
  }
};
