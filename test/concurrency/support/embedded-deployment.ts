import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { type RunningService, deleteQueueKeys, startService } from '../../support/service.js';
import { type Deployment, FIXED_APP_URL, rebuildAndVerify } from './deployment.js';

/** The embedded store in one process, started as `npm start` starts it (test/support/service.ts). */
export const startEmbeddedDeployment = async (options: { simulatedClock: boolean }): Promise<Deployment> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hiring-concurrency-'));
  const queuePrefix = `cc-embedded-${Math.random().toString(36).slice(2, 10)}`;
  const env = {
    QUEUE_PREFIX: queuePrefix, WEBHOOK_ALLOW_INSECURE: 'true', APP_URL: FIXED_APP_URL,
    ...(options.simulatedClock ? { SIMULATED_CLOCK: 'true' } : {}),
  };
  let service: RunningService = await startService(env, { dataDir });
  return {
    name: 'embedded store, one process',
    apiUrls: () => [service.baseUrl],
    internalUrl: () => service.internalUrl,
    internalToken: () => service.internalToken,
    queuePrefix,
    appUrl: FIXED_APP_URL,
    simulatedClock: options.simulatedClock,
    exitedProcesses: () => (service.process.exitCode === null && service.process.signalCode === null ? [] : [`service (${service.process.exitCode ?? service.process.signalCode}):\n${service.output().slice(-2000)}`]),
    async maintenance(work) {
      await service.stop();
      try {
        const database = await openEmbeddedDatabase(dataDir);
        try {
          await work(database.client);
        } finally {
          await database.close();
        }
        return await rebuildAndVerify({ DATA_DIR: dataDir });
      } finally {
        service = await startService(env, { dataDir });
      }
    },
    async stop() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
      await deleteQueueKeys(queuePrefix);
    },
  };
};

/**
 * The stopped service's PGlite database, opened in a child process (PGlite runs in a worker thread,
 * which Jest's module sandbox does not host) and reached over its socket like any PostgreSQL.
 */
const openEmbeddedDatabase = async (dataDir: string): Promise<{ client: pg.Client; close: () => Promise<void> }> => {
  const scriptDir = mkdtempSync(join(tmpdir(), 'hiring-concurrency-db-'));
  const script = join(scriptDir, 'open-database.mjs');
  // A file, not `--input-type=module -e`: PGlite's worker thread inherits the flags and refuses that one.
  writeFileSync(script, `import(${JSON.stringify(pathToFileURL(resolve('dist/libs/event-store/src/index.js')).href)})
    .then(async ({ startEmbeddedDatabase }) => {
      const db = await startEmbeddedDatabase({ dataDir: ${JSON.stringify(dataDir)} });
      process.stdout.write('EMBEDDED_DATABASE ' + JSON.stringify(db.connectionString) + '\\n');
      process.stdin.on('end', () => db.stop().then(() => process.exit(0)));
      process.stdin.resume();
    })
    .catch((error) => { console.error(error); process.exit(1); });`);
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    const connectionString = await announced(child);
    const client = new pg.Client({ connectionString });
    await client.connect();
    return {
      client,
      close: async () => {
        await client.end().catch(() => undefined);
        child.stdin?.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
        rmSync(scriptDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    rmSync(scriptDir, { recursive: true, force: true });
    throw error;
  }
};

const announced = (child: ChildProcess): Promise<string> => new Promise((done, fail) => {
  let output = '';
  const timer = setTimeout(() => fail(new Error(`embedded database did not open in time:\n${output}`)), 60_000);
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const line = output.split('\n').find((text) => text.startsWith('EMBEDDED_DATABASE '));
    if (line === undefined) return;
    clearTimeout(timer);
    done(JSON.parse(line.slice('EMBEDDED_DATABASE '.length)) as string);
  });
  child.once('exit', (code) => {
    clearTimeout(timer);
    fail(new Error(`embedded database exited (${code}):\n${output}`));
  });
});
