import { randomUUID } from 'node:crypto';
import { link, open, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StartRefused } from '#platform';
import { tryOsFileLock } from './os-file-lock.js';

export class DataDirInUseError extends StartRefused {
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
  ) {
    super(`DATA_DIR ${dataDir} is in use by another process (pid ${pid ?? 'unknown'}); stop it or set DATA_DIR to another folder`);
    this.name = 'DataDirInUseError';
  }
}

const LOCK_FILE = 'event-store.lock';
const ATTEMPTS = 5;

interface LockHolder {
  pid: number;
  token: string;
}

/*
 * The lock is an OS-level flock on DATA_DIR/event-store.lock (os-file-lock.ts), released by the kernel
 * however the holder ends. The PID lock file below is the fallback where the `flock` command does not
 * exist (macOS without util-linux). Not the listening socket: the lock must be taken before PGlite
 * opens the folder, and a probe cannot tell "starting" from "dead". The file is created atomically
 * (hard link of a fully written temp file), and a holder whose PID no longer runs is taken over.
 *
 * Limits, accepted: PIDs mean something on one host only; a stale PID reused by a live process makes
 * the folder look busy until it ends; our own PID (a restarted container) is stale unless this process
 * holds the lock; two processes taking over one stale lock within microseconds could both succeed.
 */

/** Folders this process holds: the one case where the holder's PID is our own and still alive. */
const heldByThisProcess = new Set<string>();

function isAlive(holder: LockHolder, dataDir: string): boolean {
  if (holder.pid === process.pid) return heldByThisProcess.has(dataDir);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EPERM';
  }
}

async function readHolder(lockPath: string): Promise<LockHolder | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch {
    return 'missing';
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'pid' in parsed && 'token' in parsed) {
      const { pid, token } = parsed;
      if (typeof pid === 'number' && typeof token === 'string') return { pid, token };
    }
  } catch {
    // Falls through: a corrupt lock file cannot name a live holder.
  }
  return 'unreadable';
}

interface DataDirLock { release: () => Promise<void> }

/** Takes the folder for this process, or throws DataDirInUseError naming the live holder. */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  // Made here, owner-only, rather than by the `flock` command with whatever umask it inherits.
  await open(join(dataDir, LOCK_FILE), 'a', 0o600).then((file) => file.close());
  const attempt = await tryOsFileLock(join(dataDir, LOCK_FILE));
  if (attempt.kind === 'held') return { release: attempt.release };
  if (attempt.kind === 'busy') throw new DataDirInUseError(dataDir, attempt.holderPid);
  return acquirePidLock(dataDir);
}

const releasePidLock = async (dataDir: string, lockPath: string, token: string): Promise<void> => {
  heldByThisProcess.delete(dataDir);
  const holder = await readHolder(lockPath);
  if (typeof holder === 'object' && holder.token === token) await unlink(lockPath).catch(() => undefined);
};

async function acquirePidLock(dataDir: string): Promise<DataDirLock> {
  const lockPath = join(dataDir, LOCK_FILE);
  const token = randomUUID();
  const candidate = `${lockPath}.${token}`;
  await writeFile(candidate, JSON.stringify({ pid: process.pid, token }), { flag: 'wx', mode: 0o600 });
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      try {
        await link(candidate, lockPath);
        heldByThisProcess.add(dataDir);
        return { release: () => releasePidLock(dataDir, lockPath, token) };
      } catch (error) {
        if (!(typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST')) throw error;
      }
      const holder = await readHolder(lockPath);
      if (holder === 'missing') continue;
      if (holder !== 'unreadable' && isAlive(holder, dataDir)) throw new DataDirInUseError(dataDir, holder.pid);
      // Re-read right before removing, so a lock another starter has just taken over is left alone.
      const again = await readHolder(lockPath);
      const unchanged = holder === 'unreadable' ? again === 'unreadable' : typeof again === 'object' && again.token === holder.token;
      if (unchanged) await unlink(lockPath).catch(() => undefined);
    }
    throw new Error(`could not take the lock on DATA_DIR ${dataDir} after ${ATTEMPTS} attempts`);
  } finally {
    await unlink(candidate).catch(() => undefined);
  }
}
