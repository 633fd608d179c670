import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort, loadConfig } from '#platform';
import { deleteQueueKeys } from './service.js';

export const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A fresh PostgreSQL database for one suite, dropped by the returned function with the BullMQ keys
 * of the services that derived their queue prefix from its URL (none can use it again).
 */
export const freshDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const name = `e2e_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  return {
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      if (!process.env.QUEUE_PREFIX) await deleteQueueKeys(loadConfig({ EVENT_STORE_URL: url }).queuePrefix, process.env.REDIS_URL);
    },
  };
};

export interface AppProcess {
  name: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts one compiled app (`api`, `worker`, `simulator`) and waits for `ready` to answer true. */
export const startApp = async (app: 'api' | 'worker' | 'simulator', env: Record<string, string>, ready: (output: string) => Promise<boolean>): Promise<AppProcess> => {
  // A worker serves its health and metrics on PORT: several on one machine need a port each.
  const port = app === 'worker' && env.PORT === undefined ? { PORT: String(await freeLoopbackPort()) } : {};
  const child = spawn(process.execPath, [resolve(`dist/apps/${app}/src/main.js`)], { env: { ...process.env, LOG_LEVEL: 'warn', ...port, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited early:\n${output}`);
    if (await ready(output).catch(() => false)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} did not start in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: app, child, output: () => output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
};
