import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';

/** The `flock` command answers this when the file is locked by someone else (`--conflict-exit-code`). */
const CONFLICT = 75;

export type OsLockAttempt =
  | { kind: 'held'; release: () => Promise<void> }
  | { kind: 'busy'; holderPid: number | null }
  | { kind: 'unavailable' };

/*
 * Why a child `flock` process: Node has no flock(2), and a native addon is one more thing to build on
 * every machine. The child takes an exclusive flock on the file and keeps it until its stdin closes.
 * The kernel owns the lock: it goes away the moment the holder's file descriptors close, which happens
 * when our process exits in any way (kill -9 included), even while the dead process is still a zombie
 * nobody has reaped, and no PID is ever compared, so a reused PID cannot keep a folder busy.
 * The child is in its own process group so a Ctrl-C meant for the service does not free the lock early.
 * `holderPid` is what the holder wrote into the file, for the message only.
 */
export const tryOsFileLock = (lockPath: string): Promise<OsLockAttempt> =>
  new Promise((resolveAttempt) => {
    const script = 'printf \'{"pid":%s}\' "$HOLDER_PID" > "$0" && echo locked && exec cat > /dev/null';
    const child = spawn('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', String(CONFLICT), lockPath, 'sh', '-c', script, lockPath], {
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOLDER_PID: String(process.pid) },
    });
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    let settled = false;
    const settle = (attempt: OsLockAttempt): void => {
      if (settled) return;
      settled = true;
      resolveAttempt(attempt);
    };
    child.once('error', () => settle({ kind: 'unavailable' }));
    child.stdout?.once('data', () => {
      child.stdout?.destroy();
      // The pipes must not keep an otherwise finished process alive; the lock lives as long as we do.
      (child.stdin as Socket | null)?.unref();
      child.unref();
      settle({
        kind: 'held',
        release: async () => {
          // Held again while releasing, so the wait for the lock to go is not cut short by an empty loop.
          child.ref();
          child.stdin?.end();
          await exited;
        },
      });
    });
    child.once('exit', (code) => {
      if (settled) return;
      if (code === CONFLICT) void readHolderPid(lockPath).then((holderPid) => settle({ kind: 'busy', holderPid }));
      else settle({ kind: 'unavailable' });
    });
  });

// The holder writes `{"pid":N}`, the shape the PID-file fallback also uses.
const readHolderPid = async (lockPath: string): Promise<number | null> => {
  const text = await readFile(lockPath, 'utf8').catch(() => '');
  const pid = /"pid":\s*(\d+)/.exec(text)?.[1];
  return pid ? Number(pid) : null;
};
