import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { acquireDataDirLock } from './data-dir-lock.js';
import { keepDataDirPrivate } from './data-dir-permissions.js';
import { createEmbeddedPool } from './embedded-pool.js';
import { resolveWorkerScript } from './worker-script.js';

export interface EmbeddedDatabase {
  /** One connection: PGlite has a single backend session (see pglite-worker.mjs). */
  pool: pg.Pool;
  connectionString: string;
  dataDir: string;
  stop(): Promise<void>;
}

type Endpoint = { socketDir: string; port: number } | { host: string; port: number };
type WorkerMessage =
  | { type: 'ready'; endpoint: Endpoint }
  | { type: 'failed'; message: string }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'stopped' };

const SOCKET_FILE = '.s.PGSQL.5432';
// sun_path is 108 bytes on Linux and 104 on macOS, terminator included.
const MAX_SOCKET_PATH_BYTES = 103;
const STOP_TIMEOUT_MS = 10_000;
/** A first start runs initdb (about 5 s on a slow disk). */
const START_TIMEOUT_MS = 60_000;

function isWorkerMessage(value: unknown): value is WorkerMessage {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string';
}

function waitForReady(worker: Worker, timeoutMs: number): Promise<Endpoint> {
  return new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => fail(new Error(`embedded PGlite did not start within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: unknown): void => {
      if (!isWorkerMessage(message)) return;
      if (message.type === 'ready') settle(() => resolveReady(message.endpoint));
      if (message.type === 'failed') fail(new Error(`embedded PGlite failed to start: ${message.message}`));
    };
    const onError = (error: Error): void => fail(error);
    const onExit = (code: number): void => fail(new Error(`embedded PGlite worker exited with code ${code} while starting`));
    function settle(action: () => void): void {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      action();
    }
    function fail(error: Error): void {
      settle(() => reject(error));
    }
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

async function stopWorker(worker: Worker, logger: Logger): Promise<void> {
  const exited = new Promise<void>((resolveExit) => worker.once('exit', () => resolveExit()));
  worker.postMessage({ type: 'stop' });
  const timer = setTimeout(() => {
    logger.warn('embedded PGlite did not stop in time; terminating its worker');
    void worker.terminate();
  }, STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function connection(endpoint: Endpoint): { config: pg.PoolConfig; connectionString: string } {
  const credentials = { user: 'postgres', database: 'postgres' };
  if ('socketDir' in endpoint) {
    const query = `host=${encodeURIComponent(endpoint.socketDir)}&port=${endpoint.port}`;
    return { config: { ...credentials, host: endpoint.socketDir, port: endpoint.port }, connectionString: `postgresql://postgres@localhost/postgres?${query}` };
  }
  return { config: { ...credentials, host: endpoint.host, port: endpoint.port }, connectionString: `postgresql://postgres@${endpoint.host}:${endpoint.port}/postgres` };
}

/**
 * Starts PGlite on DATA_DIR in a worker thread, serves it on a Unix socket inside DATA_DIR (TCP on
 * 127.0.0.1 if the path is too long or the socket fails) and connects a one-connection pg.Pool.
 * Refuses with DataDirInUseError when another live process holds DATA_DIR.
 */
export async function startEmbeddedDatabase(options: { dataDir: string; logger?: Logger }): Promise<EmbeddedDatabase> {
  const logger = options.logger ?? pino({ name: 'event-store' });
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = await acquireDataDirLock(dataDir);
  try {
    // Once the folder is ours (the lock file included), and before PGlite opens it.
    await keepDataDirPrivate(dataDir, logger);
    const socketPath = join(dataDir, SOCKET_FILE);
    // Holding the lock proves a leftover socket file belongs to a dead process.
    await rm(socketPath, { force: true });
    const useSocket = Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES;
    const worker = new Worker(resolveWorkerScript(), {
      workerData: { pgDataDir: join(dataDir, 'pglite'), socketPath: useSocket ? socketPath : null },
    });
    worker.on('message', (message: unknown) => {
      if (isWorkerMessage(message) && message.type === 'log') logger[message.level]({ component: 'pglite-worker' }, message.message);
    });
    const endpoint = await waitForReady(worker, START_TIMEOUT_MS).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    let stopping: Promise<void> | null = null;
    worker.on('error', (error) => logger.error({ err: error }, 'embedded PGlite worker failed'));
    worker.on('exit', (code) => {
      if (stopping === null) logger.error({ code }, 'embedded PGlite worker exited unexpectedly; the event store is unavailable');
    });
    const { config, connectionString } = connection(endpoint);
    const pool = createEmbeddedPool(config, logger);
    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        await pool.end();
        await stopWorker(worker, logger);
        await lock.release();
      })();
      return stopping;
    };
    logger.debug({ dataDir, connectionString }, 'embedded PGlite started');
    return { pool, connectionString, dataDir, stop };
  } catch (error) {
    await lock.release();
    throw error;
  }
}
