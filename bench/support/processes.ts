import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { freeLoopbackPort } from '#platform';
import { REDIS_URL, logger, randomSuffix } from './log.js';

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export interface Child {
  name: string;
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// Whatever happens to the run, no child outlives it.
process.on('exit', () => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
});

const MAX_OUTPUT = 64 * 1024;

/** Spawns `node <args>`, keeps the tail of its output, and stops it with SIGTERM (SIGKILL after 10 s). */
export const spawnNode = (name: string, args: string[], env: Record<string, string>): Child => {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => {
    running.delete(child);
    done();
  }));
  logger.info({ child: name, pid: child.pid }, `${name}: started (pid ${child.pid})`);
  return {
    name,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      logger.info({ child: name, exitCode: child.exitCode }, `${name}: stopped`);
    },
  };
};

/** Polls until `ready` answers true; fails with the child's output when it exits or times out. */
export const waitUntilReady = async (child: Child, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited early:\n${child.output()}`);
    try {
      if (await ready()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`${child.name} did not start in time:\n${child.output()}`);
    }
    await sleep(100);
  }
};

/** Deletes the keys named, and those matching each `*` pattern (SCAN, never KEYS); returns how many went. */
export const deleteRedisKeys = async (patterns: string[]): Promise<number> => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    const exact = patterns.filter((pattern) => !pattern.includes('*'));
    for (let offset = 0; offset < exact.length; offset += 500) deleted += await redis.del(...exact.slice(offset, offset + 500));
    for (const pattern of patterns.filter((candidate) => candidate.includes('*'))) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        if (keys.length > 0) deleted += await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
};

const DIST = resolve('dist');

/** A service's queues (its BullMQ keys, under its own prefix) go with it: a bench leaves Redis as it found it. */
const deleteQueueKeys = async (queuePrefix: string): Promise<void> => {
  await deleteRedisKeys([`${queuePrefix}:*`]).catch((error: unknown) => logger.warn({ err: error, queuePrefix }, 'deleting the queue keys of a stopped service failed'));
};

/**
 * BENCH_CPU_PROF=<dir>: the service processes (standalone, public API) write a V8 CPU profile of
 * each thread there when they stop (`node --cpu-prof`): where a request's CPU goes.
 */
const profileArgs = (): string[] => {
  const dir = process.env.BENCH_CPU_PROF;
  const interval = process.env.BENCH_CPU_PROF_INTERVAL;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...(interval ? [`--cpu-prof-interval=${interval}`] : [])] : [];
};

export interface Service extends Child {
  baseUrl: string;
  internalUrl: string;
  internalToken: string;
  /** BullMQ key prefix of the process (QUEUE_PREFIX): its queues live under `<prefix>:*`. */
  queuePrefix: string;
}

/** The whole service as `npm start` runs it (embedded PGlite in a temp DATA_DIR), as the e2e tests start it. */
export const startStandalone = async (env: Record<string, string> = {}, keep?: { dataDir: string }): Promise<Service> => {
  const port = await freeLoopbackPort();
  const internalPort = await freeLoopbackPort();
  // A DATA_DIR given by the caller outlives the process (a restart on the same data); the caller removes it.
  const dataDir = keep?.dataDir ?? mkdtempSync(join(tmpdir(), 'hiring-bench-'));
  const internalToken = `bench-${randomSuffix()}${randomSuffix()}`;
  const queuePrefix = `bench-${randomSuffix()}`;
  const child = spawnNode('standalone service', [...profileArgs(), join(DIST, 'apps/standalone/src/main.js')], {
    PORT: String(port), INTERNAL_PORT: String(internalPort), DATA_DIR: dataDir, INTERNAL_TOKEN: internalToken,
    APP_URL: `http://127.0.0.1:${internalPort}`, HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_WORKSPACE: 'false',
    REDIS_URL, QUEUE_PREFIX: queuePrefix, ...env,
  });
  const internalUrl = `http://127.0.0.1:${internalPort}`;
  const baseUrl = `http://127.0.0.1:${port}`;
  // Started once the public API's readiness probe answers 200, as an integrator's client would take it
  // (the first request after a restart is measured from there): the process opens that port last.
  await waitUntilReady(child, async () => (await fetch(`${baseUrl}/health/ready`)).status === 200, 120_000);
  return {
    ...child, baseUrl, internalUrl, internalToken, queuePrefix,
    async stop() {
      await child.stop();
      await deleteQueueKeys(queuePrefix);
      if (keep === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/** The public API alone (`npm run start:api`) in front of a PostgreSQL event store and read models. */
export const startApi = async (eventStoreUrl: string): Promise<Service> => {
  const port = await freeLoopbackPort();
  const internalToken = `bench-${randomSuffix()}`;
  const queuePrefix = `bench-${randomSuffix()}`;
  const child = spawnNode('public API', [...profileArgs(), join(DIST, 'apps/api/src/main.js')], {
    PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', EVENT_STORE_URL: eventStoreUrl, REDIS_URL, QUEUE_PREFIX: queuePrefix,
    SERVICE_SECRET: `bench-service-secret-${randomSuffix()}${randomSuffix()}`, INTERNAL_TOKEN: internalToken, DATA_DIR: tmpdir(),
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, async () => (await fetch(`${baseUrl}/v1/me`)).status === 401);
  return {
    ...child, baseUrl, internalUrl: '', internalToken, queuePrefix,
    async stop() {
      await child.stop();
      await deleteQueueKeys(queuePrefix);
    },
  };
};

/** A minimal Nest-on-Fastify app with one GET route (`dist/bench/hello-app.js`): the HTTP baseline. */
export const startHello = async (): Promise<Child & { baseUrl: string }> => {
  const port = await freeLoopbackPort();
  const child = spawnNode('Nest hello world', [join(DIST, 'bench/hello-app.js')], { PORT: String(port) });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, async () => (await fetch(`${baseUrl}/hello`)).status === 200);
  return { ...child, baseUrl };
};

/**
 * The plain design (`dist/bench/plain-design-app.js`): node:http + pg + ioredis doing only the durable
 * part of an invitation and a read, on `databaseUrl` in a schema of its own. The second baseline.
 */
export const startPlainDesign = async (databaseUrl: string, schema: string): Promise<Child & { baseUrl: string }> => {
  const port = await freeLoopbackPort();
  const child = spawnNode('plain design', [join(DIST, 'bench/plain-design-app.js')], { PORT: String(port), DATABASE_URL: databaseUrl, SCHEMA: schema, REDIS_URL });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, async () => (await fetch(`${baseUrl}/v1/results?limit=1`)).status === 200);
  return { ...child, baseUrl };
};

const RECEIVER = `
const http = require('node:http');
let received = 0;
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { received += 1; res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => { process.stdout.write(JSON.stringify({ received }) + '\\n'); process.exit(0); });
`;

/** A loopback webhook receiver in a process of its own: reads the body, answers 200. */
export const startReceiver = async (): Promise<Child & { url: string }> => {
  const port = await freeLoopbackPort();
  const child = spawnNode('webhook receiver', ['--input-type=commonjs', '-e', RECEIVER], { PORT: String(port) });
  const url = `http://127.0.0.1:${port}/hooks`;
  await waitUntilReady(child, async () => (await fetch(url, { method: 'POST', body: '{}' })).status === 200);
  return { ...child, url };
};
