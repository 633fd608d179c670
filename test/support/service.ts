import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { REDIS_URL, deleteKeys } from '#messaging/test-support/redis.js';
import { freeLoopbackPort, hashTagged, loadConfig } from '#platform';
import { markInternalOrigin } from './openapi-conformance.js';

/** The environment the e2e suites start the compiled service with (ports, token, quiet logs, fast retries). */
export const serviceEnvironment = (
  where: { port: number; internalPort: number; internalToken: string; dataDir?: string },
  env: Record<string, string>,
): NodeJS.ProcessEnv => ({
  ...process.env,
  PORT: String(where.port),
  INTERNAL_PORT: String(where.internalPort),
  ...(where.dataDir ? { DATA_DIR: where.dataDir } : {}),
  INTERNAL_TOKEN: where.internalToken,
  APP_URL: `http://localhost:${where.internalPort}`,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  DEMO_WORKSPACE: 'false',
  WEBHOOK_BACKOFF_MS: '50',
  ...env,
});

export interface RunningService {
  baseUrl: string;
  internalUrl: string;
  internalToken: string;
  dataDir: string;
  process: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const ENTRY = resolve('dist/apps/standalone/src/main.js');
const TEMPLATE = join(tmpdir(), `hiring-pglite-template-${process.getuid?.() ?? 0}`);

/**
 * A freshly initialised PGlite cluster, made once per machine and copied into each test's DATA_DIR:
 * initdb costs seconds (much more on a loaded CI machine), a copy milliseconds. The service still
 * creates its own tables on that copy exactly as on first start.
 */
export const pgliteTemplate = async (): Promise<string> => {
  if (existsSync(join(TEMPLATE, 'PG_VERSION'))) return TEMPLATE;
  const building = mkdtempSync(join(tmpdir(), 'hiring-pglite-building-'));
  // In a child process: PGlite runs in a worker thread, which Jest's module sandbox does not host.
  const script = `import(${JSON.stringify(pathToFileURL(resolve('dist/libs/event-store/src/index.js')).href)})
    .then(async ({ startEmbeddedDatabase }) => { const db = await startEmbeddedDatabase({ dataDir: ${JSON.stringify(building)} }); await db.stop(); })
    .catch((error) => { console.error(error); process.exit(1); });`;
  // A file, not `--input-type=module -e`: PGlite's worker thread inherits the flags and refuses that one.
  const scriptFile = join(building, 'make-template.mjs');
  writeFileSync(scriptFile, script);
  execFileSync(process.execPath, [scriptFile], { stdio: 'inherit', timeout: 120_000 });
  try {
    renameSync(join(building, 'pglite'), TEMPLATE);
  } catch {
    // Another test file made it first: theirs is as good.
  }
  rmSync(building, { recursive: true, force: true });
  return TEMPLATE;
};

/**
 * Starts the compiled service exactly as `npm start` does (after its build step), on free ports,
 * a fresh DATA_DIR and its own Redis key space, and waits until it answers.
 */
export const startService = async (env: Record<string, string> = {}, options: { dataDir?: string } = {}): Promise<RunningService> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchService(env, options);
    } catch (error) {
      // Another test file's process bound the port we picked before ours did: pick again.
      if (attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
};

const launchService = async (env: Record<string, string>, options: { dataDir?: string }): Promise<RunningService> => {
  const port = await freeLoopbackPort();
  const internalPort = await freeLoopbackPort();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hiring-e2e-'));
  if (!options.dataDir && !env.EVENT_STORE_URL) cpSync(await pgliteTemplate(), join(dataDir, 'pglite'), { recursive: true });
  const internalToken = `it-${Math.random().toString(36).slice(2)}`;
  // A service on a DATA_DIR of its own gets a queue prefix of its own, and its keys go with it at
  // stop (nothing can start again on that DATA_DIR): each run left ~1,000 BullMQ keys otherwise.
  const ownPrefix = options.dataDir === undefined && env.QUEUE_PREFIX === undefined && env.EVENT_STORE_URL === undefined
    ? `e2e-${Math.random().toString(36).slice(2)}`
    : null;
  const child = spawn(process.execPath, [ENTRY], {
    env: serviceEnvironment({ port, internalPort, internalToken, dataDir }, ownPrefix === null ? env : { ...env, QUEUE_PREFIX: ownPrefix }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const internalUrl = `http://127.0.0.1:${internalPort}`;
  markInternalOrigin(internalUrl);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`service exited early:\n${output}`);
    }
    try {
      const response = await fetch(`${internalUrl}/internal/health`, { headers: { authorization: `Bearer ${internalToken}` } });
      if (response.status < 500 && output.includes('running')) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl, internalUrl, internalToken, dataDir, process: child, output: () => output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (ownPrefix !== null) await deleteQueueKeys(ownPrefix, env.REDIS_URL);
    },
  };
};

/**
 * Removes a DATA_DIR a test kept across restarts, and the BullMQ keys of the services started on it
 * with `env`, under the queue prefix a service derives from its DATA_DIR: each run left ~80 keys
 * without expiry otherwise. A prefix set in the environment, or one derived from EVENT_STORE_URL,
 * may be shared: its keys stay. Call it once every service on the DATA_DIR has stopped.
 */
export const removeDataDir = async (dataDir: string, env: Record<string, string> = {}): Promise<void> => {
  rmSync(dataDir, { recursive: true, force: true });
  const service = { ...process.env, ...env };
  if (service.QUEUE_PREFIX || service.EVENT_STORE_URL) return;
  await deleteQueueKeys(loadConfig({ DATA_DIR: dataDir }).queuePrefix, service.REDIS_URL);
};

/** A service's BullMQ keys, deleted. Best effort: a test may have stopped this Redis; its keys are then left as they were. */
export const deleteQueueKeys = async (prefix: string, redisUrl = REDIS_URL): Promise<void> => {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2_000, retryStrategy: () => null, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    // QUEUE_PREFIX as a test gives it, and as the service uses it (hash-tagged: docs/architecture.md, Redis keys).
    for (const each of new Set([prefix, hashTagged(prefix)])) await deleteKeys(redis, each);
  } catch {
    // Redis is down or gone: nothing to clean up now.
  } finally {
    redis.disconnect();
  }
};
