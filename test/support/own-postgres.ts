import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '#platform';

/** The server binaries of the machine's PostgreSQL (Debian keeps them out of the PATH). */
const binDir = (): string => {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(root, version, 'bin', 'initdb'))) return join(root, version, 'bin');
  throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
};

export interface OwnPostgres {
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: every connection is terminated and new ones are refused. */
  stop(): void;
  start(): void;
  /** Stops it for good and removes its folder. */
  destroy(): void;
}

/**
 * A PostgreSQL server of the test's own, made with `initdb` in a temporary folder and listening on
 * a spare loopback port: stopping it (an outage) never disturbs the other suites, which use the
 * machine's server. initdb refuses to run as root, so as root it runs as the `postgres` user.
 */
export const ownPostgres = async (): Promise<OwnPostgres> => {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'own-postgres-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, argv, { stdio: 'pipe', timeout: 60_000, cwd: tmpdir() });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freeLoopbackPort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = (): void => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const stop = (): void => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    destroy: () => {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
