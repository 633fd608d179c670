import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { acquireDataDirLock, DataDirInUseError } from './data-dir-lock.js';

/** A PID that surely ran and surely no longer runs: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid ?? -1;
}

describe('DATA_DIR lock', () => {
  let dataDir = '';
  const lockFile = (): string => join(dataDir, 'event-store.lock');

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'es-lock-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses while a live process holds it, naming that process', async () => {
    await writeFile(lockFile(), JSON.stringify({ pid: process.ppid, token: 'parent' }));

    const attempt = acquireDataDirLock(dataDir);

    await expect(attempt).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(attempt).rejects.toThrow(`DATA_DIR ${dataDir} is in use by another process (pid ${process.ppid})`);
  });

  it('refuses a second holder in the same process, and admits one after release', async () => {
    const lock = await acquireDataDirLock(dataDir);
    await expect(acquireDataDirLock(dataDir)).rejects.toBeInstanceOf(DataDirInUseError);

    await lock.release();
    await (await acquireDataDirLock(dataDir)).release();
    expect(await readdir(dataDir)).toEqual([]);
  });

  it.each([
    ['a dead process', async () => JSON.stringify({ pid: await deadPid(), token: 'crashed' })],
    ['a previous process that had our PID (container restart)', async () => JSON.stringify({ pid: process.pid, token: 'previous-life' })],
    ['a corrupt file', async () => '{"pid": 12'],
  ])('takes over a lock left by %s', async (_case, content) => {
    await writeFile(lockFile(), await content());

    const lock = await acquireDataDirLock(dataDir);

    expect(await readdir(dataDir)).toEqual(['event-store.lock']);
    await lock.release();
  });
});
