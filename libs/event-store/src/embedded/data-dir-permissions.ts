import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';

/** Group and other bits: none of them may be set anywhere under DATA_DIR. */
const SHARED_BITS = 0o077;

/**
 * DATA_DIR holds personal data, the event log and the service secret: it is the service's alone,
 * folders 0700 and files 0600. New files are made that way (the process umask, see process-main.ts,
 * and the PGlite worker's own file modes, see pglite-worker.mjs); this takes back what an earlier
 * version left open (folders 0755, PGlite's files 0666). Symbolic links are not followed.
 */
export const keepDataDirPrivate = async (dataDir: string, logger: Logger): Promise<void> => {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  let tightened = 0;
  const visit = async (path: string): Promise<void> => {
    const stats = await lstat(path).catch(() => null);
    if (!stats || stats.isSymbolicLink()) return;
    if ((stats.mode & SHARED_BITS) !== 0) {
      // A file removed in between (PGlite or redis-server at work) is no error.
      await chmod(path, stats.mode & 0o7777 & ~SHARED_BITS).then(() => { tightened += 1; }, () => undefined);
    }
    if (!stats.isDirectory()) return;
    for (const name of await readdir(path).catch(() => [])) await visit(join(path, name));
  };
  await visit(dataDir);
  if (tightened > 0) {
    logger.warn({ dataDir, tightened }, 'DATA_DIR was open to other users: its files and folders are now the service\'s alone (0600/0700)');
  }
};
