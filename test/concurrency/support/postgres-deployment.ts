import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '#platform';
import { markInternalOrigin } from '../../support/openapi-conformance.js';
import { type AppProcess, freshDatabase, startApp } from '../../support/processes.js';
import { deleteQueueKeys } from '../../support/service.js';
import { type Deployment, FIXED_APP_URL, rebuildAndVerify } from './deployment.js';

/**
 * PostgreSQL with separate processes, as test/multiprocess.e2e.spec.ts starts them: two API
 * processes, one worker and the internal application, sharing the database and Redis.
 */
export const startPostgresDeployment = async (options: { simulatedClock: boolean }): Promise<Deployment> => {
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
  };
  const processes: AppProcess[] = [];
  const apiUrls: string[] = [];
  const stop = async (): Promise<void> => {
    for (const started of processes.reverse()) await started.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    await deleteQueueKeys(queuePrefix);
  };
  try {
    processes.push(await startApp('worker', { ...env, LOG_LEVEL: 'info' }, async (output) => output.includes('worker running')));
    processes.push(await startApp('simulator', env, async () =>
      (await fetch(`${internalUrl}/internal/health`, { headers: { authorization: `Bearer ${token}` } })).status === 200));
    for (let index = 0; index < 2; index += 1) {
      const port = await freeLoopbackPort();
      const url = `http://127.0.0.1:${port}`;
      processes.push(await startApp('api', { ...env, PORT: String(port) }, async () => (await fetch(`${url}/v1/me`)).status === 401));
      apiUrls.push(url);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    name: 'PostgreSQL, two API processes, a worker and the internal application',
    apiUrls: () => apiUrls,
    internalUrl: () => internalUrl,
    internalToken: () => token,
    queuePrefix,
    appUrl: FIXED_APP_URL,
    simulatedClock: options.simulatedClock,
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
