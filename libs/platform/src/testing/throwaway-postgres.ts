import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '../net/free-port.js';

/** The server binaries of the machine's PostgreSQL (Debian keeps them out of the PATH). */
const binDir = (): string => {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(root, version, 'bin', 'initdb'))) return join(root, version, 'bin');
  throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
};

export interface ThrowawayPostgres {
  port: number;
  url: string;
  /** As a switchover drains a primary: every session, open or new, becomes read-only (ALTER SYSTEM, reload). */
  setReadOnly(readOnly: boolean): Promise<void>;
  /** Stops the server (immediate: as a host that goes away), keeping its data. */
  stop(): void;
  /** Starts it again on the same port. */
  start(): void;
  destroy(): void;
}

/** A streaming standby of a throwaway server: a hot standby that answers reads. */
export interface ThrowawayStandby extends ThrowawayPostgres {
  /** pg_wal_replay_pause(): WAL still arrives, nothing more is replayed (a standby that lags). */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** pg_ctl promote: the standby becomes a primary of its own. */
  promote(): void;
}

/** Who runs the server binaries: as root, the `postgres` user (initdb refuses root). */
const serverTools = () => {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const own = (dir: string): void => {
    if (!asRoot) return;
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
    chmodSync(dir, 0o700);
  };
  const run = (tool: string, args: string[]): void => {
    execFileSync(asRoot ? 'runuser' : join(bin, tool), asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, { stdio: 'pipe', timeout: 60_000, cwd: tmpdir() });
  };
  return { own, run };
};

const withClient = async <T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** pg_ctl around one data folder, on one port, its socket and log in `dir`. */
const serverControl = (dir: string, data: string, port: number, run: (tool: string, args: string[]) => void) => ({
  start: () => run('pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c ssl=off`, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']),
  stop: () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
    } catch {
      // already stopped
    }
  },
});

/**
 * A PostgreSQL server of a test's own (initdb in a temporary folder, a spare loopback port, no TLS),
 * for the host-list tests that need a host to turn read-only, which the machine's server must never
 * be made. initdb refuses root: as root it runs as the `postgres` user.
 */
export const throwawayPostgres = async (): Promise<ThrowawayPostgres> => {
  const { own, run } = serverTools();
  const dir = mkdtempSync(join(tmpdir(), 'throwaway-postgres-'));
  own(dir);
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freeLoopbackPort();
  const control = serverControl(dir, data, port, run);
  control.start();
  return throwawayServer(dir, port, control);
};

const throwawayServer = (dir: string, port: number, control: { start(): void; stop(): void }): ThrowawayPostgres => {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    port,
    url,
    async setReadOnly(readOnly) {
      await withClient(url, async (client) => {
        await client.query(`ALTER SYSTEM SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`);
        await client.query('SELECT pg_reload_conf()');
      });
      // The reload reaches the other sessions when they next read their configuration: give them a moment.
      await new Promise((resolveLater) => setTimeout(resolveLater, 300));
    },
    stop: control.stop,
    start: control.start,
    destroy() {
      control.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/**
 * A hot standby of `primary` (pg_basebackup -R: streaming from it, read-only queries allowed), on a
 * spare port of its own, for the tests of reads on standbys. Asynchronous: what it has replayed is
 * what the tests wait for.
 */
export const throwawayStandby = async (primary: ThrowawayPostgres): Promise<ThrowawayStandby> => {
  const { own, run } = serverTools();
  const dir = mkdtempSync(join(tmpdir(), 'throwaway-standby-'));
  own(dir);
  const data = join(dir, 'data');
  run('pg_basebackup', ['-D', data, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-X', 'stream', '-c', 'fast', '-R', '--no-sync']);
  const port = await freeLoopbackPort();
  const control = serverControl(dir, data, port, run);
  control.start();
  const server = throwawayServer(dir, port, control);
  return {
    ...server,
    pauseReplay: () => withClient(server.url, async (client) => { await client.query('SELECT pg_wal_replay_pause()'); }),
    resumeReplay: () => withClient(server.url, async (client) => { await client.query('SELECT pg_wal_replay_resume()'); }),
    promote: () => run('pg_ctl', ['-D', data, '-w', '-t', '30', 'promote']),
  };
};
