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
 * A child `flock` process: Node has no flock(2), and a native addon is one more thing to build. The
 * child holds an exclusive flock until its stdin closes, so the kernel frees it however our process
 * exits (kill -9, an unreaped zombie included), and no PID is compared. Its own process group keeps a
 * Ctrl-C meant for the service from freeing it early. `holderPid` is for the message only.
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
