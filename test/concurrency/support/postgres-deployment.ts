import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '#platform';
import { markInternalOrigin } from '../../support/openapi-conformance.js';
import { type AppProcess, freshDatabase, startApp } from '../../support/processes.js';
import { deleteQueueKeys } from '../../support/service.js';
import { OwnRedis } from '../../support/faults-processes.js';
import { type Deployment, FIXED_APP_URL, rebuildAndVerify } from './deployment.js';
import { type FaultInjector, terminateConnections } from './faults.js';

type AppName = 'api' | 'worker' | 'simulator';

/**
 * PostgreSQL with separate processes, as test/multiprocess.e2e.spec.ts starts them: two API
 * processes, one worker and the internal application, sharing the database and Redis. With
 * `faults`, on a redis-server of its own (restarted as a fault), and with an injector that kills a
 * process with -9 and starts it again at once on its port with its settings.
 */
export const startPostgresDeployment = async (options: { simulatedClock: boolean; faults?: boolean }): Promise<Deployment> => {
  const redis = options.faults ? await OwnRedis.start() : null;
  const database = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'hiring-concurrency-pg-'));
  const queuePrefix = `cc-pg-${Math.random().toString(36).slice(2, 10)}`;
  const token = `cc-${Math.random().toString(36).slice(2)}`;
  const internalPort = await freeLoopbackPort();
  const internalUrl = `http://127.0.0.1:${internalPort}`;
  markInternalOrigin(internalUrl);
  const env = {
    EVENT_STORE_URL: database.url, SERVICE_SECRET: 'concurrency-tier-service-secret', INTERNAL_TOKEN: token, DATA_DIR: dataDir,
    QUEUE_PREFIX: queuePrefix, WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_BACKOFF_MS: '50',
    INTERNAL_PORT: String(internalPort), APP_URL: FIXED_APP_URL, HOST: '127.0.0.1',
    ...(options.simulatedClock ? { SIMULATED_CLOCK: 'true' } : {}),
    ...(redis === null ? {} : { REDIS_URL: redis.url }),
  };
  const processes: AppProcess[] = [];
  const apiUrls: string[] = [];
  /** How each process was started, to start it again the same way after a kill -9. */
  const launches = new Map<AppProcess, () => Promise<AppProcess>>();
  /** Every process started, killed ones included, for their logs. */
  const everyProcess: AppProcess[] = [];
  const launch = async (app: AppName, appEnv: Record<string, string>, ready: (output: string) => Promise<boolean>): Promise<AppProcess> => {
    const started = await startApp(app, appEnv, ready);
    everyProcess.push(started);
    launches.set(started, () => launch(app, appEnv, ready));
    return started;
  };
  // Every process goes, then the database, the folder and the Redis keys, whatever failed before.
  const stop = async (): Promise<void> => {
    for (const started of processes.reverse()) await started.stop().catch(() => undefined);
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    if (redis === null) await deleteQueueKeys(queuePrefix);
    else await redis.close();
  };
  try {
    const workerPort = String(await freeLoopbackPort());
    processes.push(await launch('worker', { ...env, PORT: workerPort, LOG_LEVEL: 'info' }, async (output) => output.includes('worker running')));
    processes.push(await launch('simulator', env, async () =>
      (await fetch(`${internalUrl}/internal/health`, { headers: { authorization: `Bearer ${token}` } })).status === 200));
    for (let index = 0; index < 2; index += 1) {
      const port = await freeLoopbackPort();
      const url = `http://127.0.0.1:${port}`;
      processes.push(await launch('api', { ...env, PORT: String(port) }, async () => (await fetch(`${url}/v1/me`)).status === 401));
      apiUrls.push(url);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  /** kill -9 of one process, then the same process started again at once (its place in `processes` taken by the new one). */
  const killAndRestart = async (victim: AppProcess): Promise<string> => {
    const again = launches.get(victim);
    if (again === undefined) throw new Error(`no way to start ${victim.name} again`);
    const pid = victim.child.pid;
    const exited = new Promise<void>((done) => (victim.child.exitCode !== null || victim.child.signalCode !== null ? done() : victim.child.once('exit', () => done())));
    processes.splice(processes.indexOf(victim), 1);
    victim.child.kill('SIGKILL');
    await exited;
    const replacement = await again();
    processes.push(replacement);
    return `${victim.name} pid ${pid} killed, pid ${replacement.child.pid} serving`;
  };
  const faults: FaultInjector | undefined = redis === null ? undefined : {
    async inject(kind, random) {
      const named = (name: AppName) => processes.filter((started) => started.name === name);
      switch (kind) {
        case 'kill-api': return killAndRestart(random.pick(named('api')) as AppProcess);
        case 'kill-worker': return killAndRestart(named('worker')[0] as AppProcess);
        case 'kill-internal': return killAndRestart(named('simulator')[0] as AppProcess);
        case 'terminate-connections': return `${await terminateConnections(database.url)} connections of its database terminated`;
        case 'restart-redis': {
          const downMs = random.int(100, 1500);
          await redis.crash();
          await new Promise((resolve) => setTimeout(resolve, downMs));
          await redis.start();
          return `Redis down ${downMs} ms, back empty`;
        }
      }
    },
  };
  return {
    name: 'PostgreSQL, two API processes, a worker and the internal application',
    apiUrls: () => apiUrls,
    internalUrl: () => internalUrl,
    internalToken: () => token,
    queuePrefix,
    ...(redis === null ? {} : { redisUrl: redis.url }),
    ...(faults === undefined ? {} : { faults }),
    appUrl: FIXED_APP_URL,
    simulatedClock: options.simulatedClock,
    outputs: () => everyProcess.map(({ name, child, output }) => ({ name: `${name}-${child.pid}`, output: output() })),
    exitedProcesses: () => processes.filter(({ child }) => child.exitCode !== null || child.signalCode !== null)
      .map(({ name, child, output }) => `${name} (${child.exitCode ?? child.signalCode}):\n${output().slice(-2000)}`),
    async maintenance(work) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await work(client);
      } finally {
        await client.end();
      }
      // On PostgreSQL the rebuild runs beside the running service (docs/operations.md).
      return rebuildAndVerify({ EVENT_STORE_URL: database.url, SERVICE_SECRET: env.SERVICE_SECRET, DATA_DIR: dataDir });
    },
    stop,
  };
};
