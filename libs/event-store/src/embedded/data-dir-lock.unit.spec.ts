import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { acquireDataDirLock, DataDirInUseError } from './data-dir-lock.js';

const firstLine = (child: ChildProcess): Promise<string> =>
  new Promise((resolveLine, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolveLine(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });

const processState = async (pid: number): Promise<string> =>
  (await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')).split(') ')[1]?.charAt(0) ?? 'gone';

interface Holder {
  parent: ChildProcess;
  holderPid: number;
}

/**
 * Another process holding the folder with an OS lock, the way a running service does: one process
 * (a shell that became `sleep`) with the lock on an open descriptor, under a parent that never reaps
 * it, so a kill -9 leaves a zombie with a live-looking PID behind.
 */
const startHolder = async (lockPath: string): Promise<Holder> => {
  const holder = `exec 9>>"${lockPath}"; flock -x 9; printf '{"pid":%s}' $$ > "${lockPath}"; echo $$; exec sleep 60`;
  const reaperless = 'import subprocess, sys, time\np = subprocess.Popen(["sh", "-c", sys.argv[1]])\ntime.sleep(60)';
  const parent = spawn('python3', ['-c', reaperless, holder], { stdio: ['ignore', 'pipe', 'inherit'] });
  return { parent, holderPid: Number(await firstLine(parent)) };
};

describe('DATA_DIR lock', () => {
  let dataDir = '';
  const lockFile = (): string => join(dataDir, 'event-store.lock');
  const holders: Holder[] = [];
  /** A holder of this test's lock file, killed after the test; its PID. */
  const heldElsewhere = async (): Promise<number> => {
    const holder = await startHolder(lockFile());
    holders.push(holder);
    return holder.holderPid;
  };

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'es-lock-'));
  });
  afterEach(async () => {
    // The holder (a grandchild, `sleep 60`) keeps the parent's stdout pipe open: it is killed first,
    // while its parent still lives (a zombie's PID is not reused), or Jest's worker waits a minute for it.
    for (const { parent, holderPid } of holders.splice(0)) {
      process.kill(holderPid, 'SIGKILL');
      if (parent.exitCode !== null || parent.signalCode !== null) continue;
      parent.kill('SIGKILL');
      await once(parent, 'exit');
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses while another live process holds it, naming that process', async () => {
    const holderPid = await heldElsewhere();

    const attempt = acquireDataDirLock(dataDir);

    await expect(attempt).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(attempt).rejects.toThrow(`DATA_DIR ${dataDir} is in use by another process (pid ${holderPid})`);
  });

  it('refuses a second holder in the same process, and admits one after release', async () => {
    const lock = await acquireDataDirLock(dataDir);
    await expect(acquireDataDirLock(dataDir)).rejects.toThrow(`(pid ${process.pid})`);

    await lock.release();
    await (await acquireDataDirLock(dataDir)).release();
  });

  it('is free as soon as the holder is killed with -9, while it is still an unreaped zombie', async () => {
    const holderPid = await heldElsewhere();
    await expect(acquireDataDirLock(dataDir)).rejects.toBeInstanceOf(DataDirInUseError);

    process.kill(holderPid, 'SIGKILL');
    while ((await processState(holderPid)) !== 'Z') await new Promise((resolveWait) => setTimeout(resolveWait, 10));

    const lock = await acquireDataDirLock(dataDir);
    expect(JSON.parse(await readFile(lockFile(), 'utf8'))).toEqual({ pid: process.pid });
    await lock.release();
  });

  it('takes over a lock file left by an older version or a dead process (no OS lock on it)', async () => {
    await writeFile(lockFile(), JSON.stringify({ pid: process.ppid, token: 'previous-life' }));

    const lock = await acquireDataDirLock(dataDir);

    // The previous life's holder is replaced by this process, and nobody else can take the folder now.
    expect(JSON.parse(await readFile(lockFile(), 'utf8'))).toStrictEqual({ pid: process.pid });
    await expect(acquireDataDirLock(dataDir)).rejects.toThrow(`DATA_DIR ${dataDir} is in use by another process (pid ${process.pid})`);
    await lock.release();
  });
});
