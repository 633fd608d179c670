import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type pg from 'pg';
import type { FaultInjector } from './faults.js';

/**
 * One deployment under test, as the workload and the checks reach it: public API processes (clients
 * spread their calls over them), the internal application, the database behind them and the audit
 * command line that rebuilds and verifies.
 */
export interface Deployment {
  name: string;
  apiUrls(): string[];
  internalUrl(): string;
  internalToken(): string;
  /** The BullMQ key prefix of its processes (Redis keys under `<prefix>:`). */
  queuePrefix: string;
  /** Its Redis when it has one of its own (faults mode); the machine's otherwise. */
  redisUrl?: string;
  /** Present when the deployment can suffer faults (CONCURRENCY_FAULTS, faults.concurrency.spec.ts). */
  faults?: FaultInjector;
  /** `APP_URL`: the base of the links it hands out, fixed so that links survive a restart. */
  appUrl: string;
  /** Environment the processes run with (SIMULATED_CLOCK and the like). */
  simulatedClock: boolean;
  /**
   * Runs `work` with a connection to the deployment's database, then rebuilds the read models and
   * verifies the log with the audit command line. On the embedded store the service holds DATA_DIR:
   * it is stopped for all of it and started again afterwards (on new ports, same data).
   */
  maintenance(work: (db: pg.Client) => Promise<void>): Promise<{ rebuild: string; verify: string; verified: boolean }>;
  /** What each process it ran (killed ones included) wrote, where it keeps them. */
  outputs?(): { name: string; output: string }[];
  /** Processes of the deployment that exited on their own (none may, whatever the load). */
  exitedProcesses(): string[];
  /** Everything it started: processes, databases, temporary folders, Redis keys. */
  stop(): Promise<void>;
}

export const FIXED_APP_URL = 'http://localhost:3100';

const AUDIT_ENTRY = resolve('dist/apps/audit/src/main.js');

/** Runs the audit command line (`npm run audit -- <command>`, compiled) and returns its exit code and output. */
export const runAudit = (command: string, env: Record<string, string>): Promise<{ code: number; output: string }> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, [AUDIT_ENTRY, command], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', fail);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code: code ?? 1, output });
    });
  });

/** The rebuild and verify steps both deployments share; a failed rebuild throws (nothing could be compared). */
export const rebuildAndVerify = async (env: Record<string, string>): Promise<{ rebuild: string; verify: string; verified: boolean }> => {
  const rebuilt = await runAudit('rebuild', env);
  if (rebuilt.code !== 0) throw new Error(`projections rebuild failed (${rebuilt.code}):\n${rebuilt.output}`);
  const verified = await runAudit('verify', env);
  const summary = rebuilt.output.split('\n').find((line) => line.startsWith('rebuilt ')) ?? rebuilt.output.trim();
  return { rebuild: summary, verify: verified.output.trim(), verified: verified.code === 0 };
};
