import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freeLoopbackPort } from '#platform';

export const REDIS_SERVER = '/usr/bin/redis-server';
export const SERVICE_ENTRY = resolve('dist/apps/standalone/src/main.js');

const pause = (ms: number): Promise<void> => new Promise((resolvePause) => setTimeout(resolvePause, ms));

/** Whether a Redis answers PING on the port. */
export const redisAnswers = (port: number): Promise<boolean> =>
  new Promise((resolveAnswer) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answer: boolean): void => { clearTimeout(timer); socket.destroy(); resolveAnswer(answer); };
    const timer = setTimeout(() => done(false), 500);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => done(chunk.toString().startsWith('+PONG')));
    socket.on('error', () => done(false));
  });

/**
 * A redis-server of the test's own on a spare port, without persistence: `crash()` kills it with -9
 * and `start()` brings it back on the same port, empty, as a Redis restarted without its data.
 */
export class OwnRedis {
  private child: ChildProcess | null = null;
  private readonly dir = mkdtempSync(join(tmpdir(), 'faults-redis-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freeLoopbackPort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir], { stdio: 'ignore' });
    for (let waited = 0; !(await redisAnswers(this.port)); waited += 50) {
      if (waited > 10_000) throw new Error('redis-server did not start');
      await pause(50);
    }
  }

  async crash(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    child.kill('SIGKILL');
    await exited;
  }

  async close(): Promise<void> {
    await this.crash();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The state letter of a process (R, S, Z, …) from /proc, or 'gone'. */
export const processState = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.charAt(0) ?? 'gone';
  } catch {
    return 'gone';
  }
};

export const isAlive = (pid: number): boolean => !['gone', 'Z', 'X'].includes(processState(pid));
