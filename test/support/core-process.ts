import { type ChildProcess, spawn } from 'node:child_process';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { resolve } from 'node:path';
import { freeLoopbackPort } from '#platform';
import { serviceEnvironment } from './service.js';
import { markInternalOrigin } from './openapi-conformance.js';

const ENTRY = resolve('dist/apps/standalone/src/main.js');

export interface SpawnedService {
  process: ChildProcess;
  baseUrl: string;
  internalUrl: string;
  internalToken: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  /** Resolves true once the start banner is printed, false when the process exits or the time is up. */
  running: (timeoutMs: number) => Promise<boolean>;
  kill: () => Promise<void>;
}

/** The compiled service as `npm start` runs it, without waiting for it: for starts that may not succeed. */
export const spawnService = async (env: Record<string, string>): Promise<SpawnedService> => {
  const port = await freeLoopbackPort();
  const internalPort = await freeLoopbackPort();
  const internalToken = `it-${Math.random().toString(36).slice(2)}`;
  markInternalOrigin(`http://127.0.0.1:${internalPort}`);
  const child = spawn(process.execPath, [ENTRY], {
    env: serviceEnvironment({ port, internalPort, internalToken }, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return {
    process: child,
    baseUrl: `http://127.0.0.1:${port}`,
    internalUrl: `http://127.0.0.1:${internalPort}`,
    internalToken,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    running: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) return false;
        if (stdout.includes('running')) return true;
        await new Promise((r) => setTimeout(r, 100));
      }
      return false;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
};

/** A TCP relay to a real server that can be cut (every connection dropped, new ones refused) and restored. */
export class TcpRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  private constructor(readonly port: number, private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<TcpRelay> {
    const relay = new TcpRelay(await freeLoopbackPort(), target);
    await relay.open();
    return relay;
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolveListen());
    });
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  }
}
