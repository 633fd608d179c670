import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freeLoopbackPort } from '#platform';

/**
 * Redis of the tier's own: a master, a replica and three sentinels (`redis-server --sentinel`, no
 * extra package) on spare loopback ports, never the machine's Redis on 6379. The sentinels call a
 * master down after 2 s without an answer (a frozen one included) and fail over at once.
 */
export const SENTINEL_DOWN_AFTER_MS = 2000;
export const MASTER_NAME = 'mymaster';

export interface RedisSentinels {
  /** REDIS_SENTINELS for the service. */
  sentinels: string;
  /** host:port of the master the sentinels name now. */
  master(): Promise<string>;
  /** kill -9 of the master; it is started again on its port (as the replica it is then told to be). Resolves with the old master's address. */
  killMaster(): Promise<string>;
  /** SIGSTOP of the master: it stops answering without closing anything. */
  freezeMaster(): Promise<string>;
  /** SIGCONT of a frozen one. */
  thaw(address: string): void;
  destroy(): Promise<void>;
}

export const startRedisSentinels = async (log: (line: string) => void): Promise<RedisSentinels> => {
  const dir = mkdtempSync(join(tmpdir(), 'ha-redis-'));
  const servers = new Map<number, ChildProcess>();
  const sentinels: ChildProcess[] = [];
  const startServer = (port: number, replicaOf: number | null): void => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0'];
    if (replicaOf !== null) args.push('--replicaof', '127.0.0.1', String(replicaOf));
    const child = spawn('redis-server', args, { stdio: 'ignore', detached: true });
    child.once('exit', (code, signal) => log(`redis-server ${port} exited (${code ?? signal})`));
    servers.set(port, child);
  };
  const answers = async (port: number): Promise<boolean> => {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, connectTimeout: 500, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  };
  const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`Redis: ${what} not within ${timeoutMs} ms`);
      await new Promise((resolveLater) => setTimeout(resolveLater, 100));
    }
  };

  const masterPort = await freeLoopbackPort();
  const replicaPort = await freeLoopbackPort();
  startServer(masterPort, null);
  await waitFor('the master', () => answers(masterPort));
  startServer(replicaPort, masterPort);
  const sentinelPorts: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const port = await freeLoopbackPort();
    sentinelPorts.push(port);
    const config = join(dir, `sentinel-${port}.conf`);
    writeFileSync(config, [
      `port ${port}`, 'bind 127.0.0.1', `dir ${dir}`,
      `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
      `sentinel down-after-milliseconds ${MASTER_NAME} ${SENTINEL_DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${MASTER_NAME} 6000`,
      `sentinel parallel-syncs ${MASTER_NAME} 1`, '',
    ].join('\n'));
    const child = spawn('redis-server', [config, '--sentinel'], { stdio: 'ignore', detached: true });
    sentinels.push(child);
  }
  const askSentinel = async (command: string[]): Promise<unknown> => {
    for (const port of sentinelPorts) {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, connectTimeout: 500, maxRetriesPerRequest: 0, commandTimeout: 1000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return await client.call('SENTINEL', ...command);
      } catch {
        // the next one
      } finally {
        client.disconnect();
      }
    }
    throw new Error('no sentinel answers');
  };
  const master = async (): Promise<string> => {
    const [host, port] = (await askSentinel(['get-master-addr-by-name', MASTER_NAME])) as [string, string];
    return `${host}:${port}`;
  };
  // Ready: every sentinel knows the master, the replica and the two other sentinels.
  await waitFor('the sentinels', async () => {
    const replicas = (await askSentinel(['replicas', MASTER_NAME])) as unknown[];
    const others = (await askSentinel(['sentinels', MASTER_NAME])) as unknown[];
    return replicas.length === 1 && others.length === 2;
  }, 30_000);
  const portOf = (address: string): number => Number(address.split(':')[1]);

  return {
    sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
    master,
    killMaster: async () => {
      const address = await master();
      const port = portOf(address);
      servers.get(port)?.kill('SIGKILL');
      // Back on its port once the sentinels have promoted the replica: they make it a replica of the new master.
      void (async () => {
        await waitFor('a new master', async () => (await master()) !== address, 30_000);
        startServer(port, portOf(await master()));
      })().catch((error: unknown) => log(`restarting the old master failed: ${String(error)}`));
      return address;
    },
    freezeMaster: async () => {
      const address = await master();
      servers.get(portOf(address))?.kill('SIGSTOP');
      return address;
    },
    thaw: (address) => {
      servers.get(portOf(address))?.kill('SIGCONT');
    },
    destroy: async () => {
      for (const child of [...servers.values(), ...sentinels]) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
      await new Promise((resolveLater) => setTimeout(resolveLater, 200));
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
