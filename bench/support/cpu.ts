import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { REDIS_URL, round } from './log.js';

/** Linux reports CPU time in ticks of 1/100 s (getconf CLK_TCK). */
const TICKS = 100;

/** utime + stime of a process in seconds (Linux /proc); null when it is gone or unreadable. */
export const processCpuSeconds = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return null;
  }
};

/** CPU seconds the whole machine spent busy (all cores), or null off Linux. */
const machineBusySeconds = (): number | null => {
  try {
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
      .trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / TICKS;
  } catch {
    return null;
  }
};

/** A group of processes whose CPU time is measured over a window: the server, its database backends, Redis. */
export interface CpuWatch {
  label: string;
  pids: () => Promise<number[]>;
}

export const watchPid = (label: string, pid: number | undefined): CpuWatch => ({ label, pids: async () => (pid === undefined ? [] : [pid]) });

/** The PostgreSQL backends serving one database, or one application_name (never the asking connection). */
export const watchPostgresBackends = (pool: pg.Pool, match: { database: string } | { application: string }): CpuWatch => ({
  label: 'postgres backends',
  pids: async () => {
    const [column, value] = 'database' in match ? ['datname', match.database] : ['application_name', match.application];
    const { rows } = await pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE ${column} = $1 AND pid <> pg_backend_pid()`, [value]);
    return rows.map((row) => row.pid);
  },
});

let redisPid: number | null | undefined;
/** The Redis server's process (when it runs on this machine), whatever else uses it. */
export const watchRedis = (): CpuWatch => ({
  label: 'redis-server',
  pids: async () => {
    if (redisPid === undefined) {
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        const info = await redis.info('server');
        redisPid = Number(/process_id:(\d+)/.exec(info)?.[1] ?? NaN) || null;
      } catch {
        redisPid = null;
      } finally {
        redis.disconnect();
      }
    }
    return redisPid === null ? [] : [redisPid];
  },
});

export type CpuShares = Record<string, number>;

/**
 * CPU used over a window, in cores (1 = one core busy the whole window): each watch, this process
 * (the load generator), and the whole machine, whose remainder is other work on it.
 */
export const startCpuMeter = async (watches: readonly CpuWatch[], selfLabel = 'load generator') => {
  const sample = async () => {
    const groups = await Promise.all(watches.map(async (watch) => {
      const pids = await watch.pids().catch(() => [] as number[]);
      return new Map(pids.map((pid) => [pid, processCpuSeconds(pid)] as const));
    }));
    return { groups, self: process.cpuUsage(), machine: machineBusySeconds(), at: performance.now() };
  };
  const before = await sample();
  return async (): Promise<CpuShares> => {
    const after = await sample();
    const seconds = Math.max((after.at - before.at) / 1000, 0.001);
    const shares: CpuShares = {};
    for (const [index, watch] of watches.entries()) {
      let used = 0;
      for (const [pid, cpu] of after.groups[index] ?? new Map<number, number | null>()) {
        if (cpu === null) continue;
        // A process that appeared during the window counts from its start.
        used += cpu - (before.groups[index]?.get(pid) ?? 0);
      }
      shares[watch.label] = round(used / seconds, 2);
    }
    const self = process.cpuUsage(before.self);
    shares[selfLabel] = round((self.user + self.system) / 1e6 / seconds, 2);
    if (before.machine !== null && after.machine !== null) shares['machine'] = round((after.machine - before.machine) / seconds, 2);
    return shares;
  };
};

/** `server 0.41, postgres backends 0.20, …; machine 1.95 of 2 cores busy` */
export const describeCpu = (shares: CpuShares, cores: number): string => {
  const { machine, ...parts } = shares;
  const listed = Object.entries(parts).map(([label, value]) => `${label} ${value.toFixed(2)}`).join(', ');
  return `CPU cores: ${listed}${machine === undefined ? '' : `; whole machine ${machine.toFixed(2)} of ${cores} busy`}`;
};
