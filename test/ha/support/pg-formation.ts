import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '#platform';

/**
 * A pg_auto_failover formation of the tier's own (Debian's postgresql-15-auto-failover): a monitor, a
 * primary and a synchronous secondary, each a `pg_autoctl ... --run` keeper in a process group of its
 * own (so a host loss is one `kill -9` of the group: keeper, PostgreSQL and its backends), on spare
 * loopback ports, with its folders under /tmp owned by `postgres` (pg_autoctl refuses root). Never
 * the machine's server on 5432.
 */

/** The monitor's timeouts for a failover in about 10 s (docs/operations.md, "High availability"). */
export const MONITOR_SETTINGS: Record<string, number> = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_timeout': 1000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 4000,
  'pgautofailover.primary_demote_timeout': 5000,
};

const binDir = (): string => {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(root, version, 'bin', 'pg_ctl'))) return join(root, version, 'bin');
  throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
};

/** A process and everything under it (PostgreSQL's children are not all in its keeper's process group). */
const withDescendants = (pid: number): number[] => {
  let children: number[] = [];
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)]).toString().split('\n').map((line) => Number(line.trim())).filter((child) => child > 0);
  } catch {
    // none (ps exits 1)
  }
  return [pid, ...children.flatMap(withDescendants)];
};

const killAll = (pids: readonly number[]): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};

const postmasterOf = (dataDir: string): number | null => {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid > 0 ? pid : null;
  } catch {
    return null;
  }
};

export const pgAutoctlInstalled = (): boolean => {
  try {
    execFileSync('pg_autoctl', ['--version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
};

interface NodeInfo { name: string; host: string; port: number; reported: string; goal: string }

export interface Formation {
  /** What `pg_autoctl show uri --formation default` prints: the service is given it as it is. */
  uri: string;
  nodes(): Promise<NodeInfo[]>;
  /** host:port of the node the monitor has as primary now. */
  primary(): Promise<string>;
  /** `pg_autoctl perform switchover`: resolves when the command returns. */
  switchover(): Promise<void>;
  /** Host loss of the primary: kill -9 of its keeper's process group (keeper, PostgreSQL, backends). */
  killPrimaryHost(): Promise<string>;
  destroy(): Promise<void>;
}

export const startFormation = async (log: (line: string) => void): Promise<Formation> => {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'ha-formation-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  for (const sub of ['', 'xdg-config', 'xdg-data', 'xdg-run']) {
    mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
    chownSync(join(dir, sub), uid, gid);
  }
  const env = {
    PATH: `${bin}:/usr/sbin:/usr/bin:/sbin:/bin`, HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg-config'), XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_RUNTIME_DIR: join(dir, 'xdg-run'), PGUSER: 'postgres',
  };
  const asPostgres = (args: string[]): [string, string[]] => (process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', 'pg_autoctl', ...args]] : ['pg_autoctl', args]);
  const keepers = new Map<string, ChildProcess>();
  const keeper = (name: string, args: string[]): void => {
    const [command, argv] = asPostgres(args);
    const child = spawn(command, argv, { env, cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => { output = (output + chunk.toString()).slice(-20_000); };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => log(`keeper ${name} exited (${code ?? signal})${code !== null && code !== 0 ? `:\n${output.slice(-3000)}` : ''}`));
    keepers.set(name, child);
  };
  const ctl = (args: string[], timeout = 60_000): string => {
    const [command, argv] = asPostgres(args);
    return execFileSync(command, argv, { env, cwd: dir, stdio: 'pipe', timeout }).toString();
  };

  const monitorPort = await freeLoopbackPort();
  const monitorUrl = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;
  const adminUrl = `postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
  const withMonitor = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const nodes = (): Promise<NodeInfo[]> => withMonitor(async (client) => (await client.query<NodeInfo>(
    'SELECT nodename AS name, nodehost AS host, nodeport AS port, reportedstate AS reported, goalstate AS goal FROM pgautofailover.node ORDER BY nodeid',
  )).rows);
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs: number, meanwhile?: () => Promise<void>): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await check().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`the formation: ${what} not within ${timeoutMs} ms: ${JSON.stringify(await nodes().catch(() => []))}`);
      await meanwhile?.().catch(() => undefined);
      await new Promise((resolveLater) => setTimeout(resolveLater, 250));
    }
  };

  keeper('monitor', ['create', 'monitor', '--pgdata', join(dir, 'monitor'), '--pgport', String(monitorPort), '--auth', 'trust', '--no-ssl', '--hostname', '127.0.0.1', '--run']);
  await until('the monitor', () => withMonitor(async () => true), 60_000);
  await withMonitor(async (client) => {
    for (const [name, value] of Object.entries(MONITOR_SETTINGS)) await client.query(`ALTER SYSTEM SET ${name} = ${value}`);
    await client.query('SELECT pg_reload_conf()');
  });

  const ports: number[] = [];
  for (const name of ['node1', 'node2']) {
    const port = await freeLoopbackPort();
    ports.push(port);
    keeper(name, [
      'create', 'postgres', '--pgdata', join(dir, name), '--pgport', String(port), '--monitor', monitorUrl, '--auth', 'trust', '--no-ssl',
      '--hostname', '127.0.0.1', '--dbname', 'test', '--name', name, '--run',
    ]);
    // The first node becomes the primary (single) before the second joins as its standby.
    if (name === 'node1') await until('node1 single', async () => (await nodes()).some((node) => node.name === 'node1' && node.reported === 'single'), 60_000);
  }
  // pg_basebackup waits for a spread checkpoint (minutes): an immediate one on the primary ends the wait.
  const checkpoint = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${ports[0]}/postgres`, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('CHECKPOINT').finally(() => client.end().catch(() => undefined));
  };
  await until('a primary and a secondary', async () => {
    const states = (await nodes()).map((node) => node.reported).sort();
    return states.join(',') === 'primary,secondary';
  }, 120_000, checkpoint);

  const uri = ctl(['show', 'uri', '--pgdata', join(dir, 'monitor'), '--formation', 'default']).trim();
  const primary = async (): Promise<string> => {
    const found = (await nodes()).find((node) => node.goal === 'primary' || node.goal === 'wait_primary');
    if (!found) throw new Error('the formation has no primary now');
    return `${found.host}:${found.port}`;
  };
  const nameOf = async (address: string): Promise<string> => {
    const found = (await nodes()).find((node) => `${node.host}:${node.port}` === address);
    if (!found) throw new Error(`no node at ${address}`);
    return found.name;
  };

  return {
    uri,
    nodes,
    primary,
    switchover: async () => {
      const [command, argv] = asPostgres(['perform', 'switchover', '--pgdata', join(dir, 'monitor'), '--formation', 'default']);
      await new Promise<void>((resolveDone, rejectDone) => {
        const child = spawn(command, argv, { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
        child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
        child.once('exit', (code) => (code === 0 ? resolveDone() : rejectDone(new Error(`pg_autoctl perform switchover: ${code}\n${output.slice(-2000)}`))));
      });
    },
    killPrimaryHost: async () => {
      const address = await primary();
      const name = await nameOf(address);
      const child = keepers.get(name);
      if (child?.pid === undefined) throw new Error(`no keeper for ${name}`);
      // Everything at once, as a host that dies: the keeper's group, PostgreSQL and its children.
      const postmaster = postmasterOf(join(dir, name));
      const pids = [...withDescendants(child.pid), ...(postmaster === null ? [] : withDescendants(postmaster))];
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
      killAll(pids);
      return address;
    },
    destroy: async () => {
      const pids = [...keepers.values()].flatMap((child) => (child.pid === undefined ? [] : withDescendants(child.pid)));
      for (const name of ['node1', 'node2', 'monitor']) {
        const postmaster = postmasterOf(join(dir, name));
        if (postmaster !== null) pids.push(...withDescendants(postmaster));
      }
      for (const child of keepers.values()) {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      killAll(pids);
      await new Promise((resolveLater) => setTimeout(resolveLater, 300));
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
