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
  destroy(): void;
}

/**
 * A PostgreSQL server of a test's own (initdb in a temporary folder, a spare loopback port, no TLS),
 * for the host-list tests that need a host to turn read-only, which the machine's server must never
 * be made. initdb refuses root: as root it runs as the `postgres` user.
 */
export const throwawayPostgres = async (): Promise<ThrowawayPostgres> => {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'throwaway-postgres-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]): void => {
    execFileSync(asRoot ? 'runuser' : join(bin, tool), asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, { stdio: 'pipe', timeout: 60_000, cwd: tmpdir() });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freeLoopbackPort();
  run('pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c ssl=off`, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    port,
    url,
    async setReadOnly(readOnly) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`ALTER SYSTEM SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`);
        await client.query('SELECT pg_reload_conf()');
      } finally {
        await client.end();
      }
      // The reload reaches the other sessions when they next read their configuration: give them a moment.
      await new Promise((resolveLater) => setTimeout(resolveLater, 300));
    },
    destroy() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
