import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '#platform';
import { internal } from './support/client.js';
import { SERVICE_ENTRY, isAlive, processState } from './support/faults-processes.js';
import { fetchInside, spawnInOwnNetwork } from './support/faults-namespace.js';
import { removeDataDir, serviceEnvironment, startService } from './support/service.js';

const pause = (ms: number): Promise<void> => new Promise((resolvePause) => setTimeout(resolvePause, ms));
const exitOf = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolveExit) => child.once('exit', (code) => resolveExit(code)));
const collect = (child: ChildProcess): (() => string) => {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  return () => output;
};

describe('faults: processes (kill -9, zombies, a machine without Redis)', () => {
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('5. a restart right after kill -9 is admitted while the dead process is still an unreaped zombie, and nothing is lost', async () => {
    const first = await startService();
    const dataDir = mkdtempSync(join(tmpdir(), 'faults-zombie-'));
    cleanups.push(() => removeDataDir(dataDir));
    cpSync(join(first.dataDir, 'pglite'), join(dataDir, 'pglite'), { recursive: true });
    await first.stop();
    // The service under a parent that never reaps its children, as some supervisors and shells do.
    const port = await freeLoopbackPort();
    const internalPort = await freeLoopbackPort();
    const env = serviceEnvironment({ port, internalPort, internalToken: 'zombie-token', dataDir }, {});
    const reaperless = 'import subprocess, sys, time\np = subprocess.Popen(sys.argv[1:])\nprint(p.pid, flush=True)\ntime.sleep(600)';
    const parent = spawn('python3', ['-c', reaperless, process.execPath, SERVICE_ENTRY], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => parent.kill('SIGKILL'));
    const servicePid = Number(await new Promise<string>((resolveLine) => parent.stdout?.once('data', (chunk: Buffer) => resolveLine(chunk.toString().trim()))));
    const app = internal({ internalUrl: `http://127.0.0.1:${internalPort}`, internalToken: 'zombie-token' } as never);
    let created: { status: number; body: any } | null = null;
    for (let waited = 0; waited < 60_000 && created?.status !== 201; waited += 200) {
      created = await app.call('POST', '/internal/workspaces', { name: 'Before the crash' }).catch(() => null);
      if (created?.status !== 201) await pause(200);
    }
    expect(created?.status).toBe(201);

    process.kill(servicePid, 'SIGKILL');
    for (let waited = 0; processState(servicePid) !== 'Z'; waited += 10) {
      if (waited > 10_000) throw new Error(`the killed service is ${processState(servicePid)}, not a zombie`);
      await pause(10);
    }

    const second = await startService({}, { dataDir });
    try {
      expect(processState(servicePid)).toBe('Z');
      const billing = await internal(second).call('GET', `/internal/workspaces/${created?.body.data.id}/billing`);
      expect(billing.status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('9. without Redis at the default address and with redis-server installed, the service starts its own and stops it with itself', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'faults-no-redis-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const port = await freeLoopbackPort();
    const internalPort = await freeLoopbackPort();
    const { REDIS_URL: _unset, ...env } = serviceEnvironment({ port, internalPort, internalToken: 'ns-token', dataDir }, { LOG_LEVEL: 'info' });
    const child = spawnInOwnNetwork(env, process.env.PATH ?? '/usr/bin:/bin');
    cleanups.push(() => child.kill('SIGKILL'));
    const output = collect(child);
    for (let waited = 0; !output().includes('running'); waited += 100) {
      if (child.exitCode !== null || waited > 90_000) throw new Error(`the service did not start:\n${output()}`);
      await pause(100);
    }
    expect(output()).toContain('started redis-server for this service');
    const pid = child.pid ?? 0;
    const token = { authorization: 'Bearer ns-token' };
    const ws = await fetchInside(pid, `http://127.0.0.1:${internalPort}/internal/workspaces`, { method: 'POST', headers: token, body: { name: 'Offline' } });
    expect(ws.status).toBe(201);
    const key = await fetchInside(pid, `http://127.0.0.1:${internalPort}/internal/workspaces/${ws.body.data.id}/api-keys`, { method: 'POST', headers: token, body: { mode: 'live' } });
    const me = await fetchInside(pid, `http://127.0.0.1:${port}/v1/me`, { headers: { authorization: `Bearer ${key.body.data.key}:${key.body.data.secret}` } });
    expect(me.status).toBe(200);
    const redisPid = Number(readFileSync(join(dataDir, 'redis', 'redis.pid'), 'utf8'));
    expect(isAlive(redisPid)).toBe(true);
    expect(existsSync(join(dataDir, 'redis'))).toBe(true);

    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
    // A shutdown closes its own connection: no outage is announced.
    expect(output()).not.toContain('Redis is unreachable');
    for (let waited = 0; isAlive(redisPid); waited += 50) {
      if (waited > 10_000) throw new Error('the service\'s redis-server outlived it');
      await pause(50);
    }
  }, 120_000);

  it('9. without Redis and without redis-server, the start is refused at once with one line saying how to get it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'faults-no-redis-server-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { REDIS_URL: _unset, ...env } = serviceEnvironment({ port: await freeLoopbackPort(), internalPort: await freeLoopbackPort(), internalToken: 't', dataDir }, {});
    const started = Date.now();
    const child = spawnInOwnNetwork(env, '/nonexistent');
    const output = collect(child);
    expect(await exitOf(child)).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    const said = output().split('\n').filter((line) => line.trim() !== '');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/apt install redis-server.*brew install redis.*docker run -p 6379:6379 redis:7.*REDIS_URL/);
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
  }, 30_000);
});
