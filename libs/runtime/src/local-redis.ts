import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import type { Logger } from 'pino';
import { keepDataDirPrivate } from '#event-store/embedded/data-dir-permissions.js';
import { type ServiceConfig, StartRefused, freeLoopbackPort, redisTargetAddress } from '#platform';

export class RedisNotAvailableError extends StartRefused {
  constructor(address: string) {
    super(`Redis is needed and nothing answers at ${address}, and redis-server is not installed: install it (apt install redis-server, brew install redis), run one (docker run -p 6379:6379 redis:7), or set REDIS_URL to one.`);
    this.name = 'RedisNotAvailableError';
  }
}

export interface LocalRedis {
  config: ServiceConfig;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 5000;

/** Whether a Redis answers PING at the URL's host and port within the time. */
const answersPing = (url: string, timeoutMs: number): Promise<boolean> =>
  new Promise((resolveAnswer) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port || 6379), hostname || '127.0.0.1');
    const done = (answer: boolean): void => { clearTimeout(timer); socket.destroy(); resolveAnswer(answer); };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => done(chunk.toString().startsWith('+PONG') || chunk.toString().startsWith('-NOAUTH')));
    socket.on('error', () => done(false));
  });

const onPath = (name: string): string | null => {
  for (const folder of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(folder, name), constants.X_OK);
      return join(folder, name);
    } catch {
      // not in this folder
    }
  }
  return null;
};

/** A redis-server left running by a previous run that was killed with -9 (we hold DATA_DIR, so it is ours). */
const stopLeftover = async (pidFile: string): Promise<void> => {
  const read = (path: string): string => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  const pid = Number.parseInt(read(pidFile), 10);
  // Checked by name too: after a reboot the PID may belong to anything.
  if (!Number.isInteger(pid) || pid <= 0 || !read(`/proc/${pid}/cmdline`).includes('redis-server')) return;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 3000 && answersAlive(pid); waited += 50) await new Promise((resolveWait) => setTimeout(resolveWait, 50));
};

const answersAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * With REDIS_URL unset and nothing at the default address, a redis-server of the service's own is started
 * (DATA_DIR/redis, append-only, loopback on a free port) and stopped with it; without one, a one-line refusal.
 */
export const ensureRedis = async (config: ServiceConfig, logger: Logger): Promise<LocalRedis> => {
  const unchanged = { config, stop: async () => undefined };
  if (config.redisUrlGiven || config.redis.kind !== 'url' || (await answersPing(config.redis.url, 500))) return unchanged;
  const binary = onPath('redis-server');
  if (!binary) throw new RedisNotAvailableError(redisTargetAddress(config.redis));
  const dir = join(config.dataDir, 'redis');
  // Its append-only file holds rate-limit and idempotency records (answers with personal data):
  // the service's alone, like the rest of DATA_DIR, before redis-server opens it (it inherits the
  // process umask). The rest of DATA_DIR is the embedded database's to close (startEmbeddedDatabase).
  await keepDataDirPrivate(dir, logger);
  const pidFile = join(dir, 'redis.pid');
  await stopLeftover(pidFile);
  const port = await freeLoopbackPort();
  const child: ChildProcess = spawn(binary, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '',
    '--pidfile', pidFile, '--logfile', join(dir, 'redis.log'), '--daemonize', 'no',
  ], { stdio: 'ignore' });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.once('error', () => undefined);
  // The service may exit in any way but kill -9: the server goes with it.
  const killOnExit = (): void => { child.kill('SIGTERM'); };
  process.once('exit', killOnExit);
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answersPing(url, 200))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server (${binary}) did not start; see ${join(dir, 'redis.log')}`);
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  logger.info({ redis: url, dataDir: dir }, 'no Redis at the default address: started redis-server for this service');
  return {
    config: { ...config, redis: { kind: 'url', url, password: null } },
    stop: async () => {
      process.off('exit', killOnExit);
      child.kill('SIGTERM');
      await exited;
    },
  };
};
