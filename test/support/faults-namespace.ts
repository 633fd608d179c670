import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { SERVICE_ENTRY } from './faults-processes.js';

/**
 * The service in a network namespace of its own (`unshare -n`, loopback up and empty): "nothing
 * answers at the default Redis address" although this machine runs Redis on 6379. The namespace
 * lives as long as the service; requests are made from inside it with `nsenter`.
 */
export const spawnInOwnNetwork = (env: NodeJS.ProcessEnv, servicePath: string): ChildProcess =>
  spawn('unshare', ['--net', 'sh', '-c', `ip link set lo up && PATH="$SERVICE_PATH" exec "${process.execPath}" "${SERVICE_ENTRY}"`], {
    env: { ...env, SERVICE_PATH: servicePath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** A fetch made from inside the namespace of `pid` (a node one-liner run there). */
export const fetchInside = (pid: number, url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; body: any }> => {
  const script = `fetch(${JSON.stringify(url)}, ${JSON.stringify({ method: init.method ?? 'GET', headers: { 'content-type': 'application/json', ...init.headers }, body: init.body === undefined ? undefined : JSON.stringify(init.body) })})
    .then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.json().catch(() => null) })))
    .catch((e) => console.log(JSON.stringify({ status: 0, body: String(e) })))`;
  return new Promise((resolveFetch, reject) => {
    execFile('nsenter', [`--net=/proc/${pid}/ns/net`, process.execPath, '-e', script], { timeout: 15_000 }, (error, stdout) => {
      if (error) reject(error);
      else resolveFetch(JSON.parse(stdout.trim()) as { status: number; body: any });
    });
  });
};
