// PGlite behind a PostgreSQL wire-protocol socket, on a worker thread.
//
// Plain JavaScript on purpose: a Worker needs a file Node can load as it is, both from the compiled
// dist/ folder and under Jest (ts-jest cannot run a .ts file in a Worker). The build copies it next
// to the compiled embedded-database.js.
//
// Why a worker: PGlite runs PostgreSQL compiled to WebAssembly synchronously, so every query freezes
// the thread it runs on. Here it freezes this worker, never the API's event loop.
//
// Protocol with the main thread (embedded-database.ts):
//   in:  { type: 'stop' }
//   out: { type: 'ready', endpoint: { socketDir, port } | { host, port } } | { type: 'failed', message }
//        { type: 'log', level, message } | { type: 'stopped' }
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { dirname, basename } from 'node:path';

// DATA_DIR is the service's alone (folders 0700, files 0600). PGlite's file system (Emscripten's
// NODEFS) creates every file with mode 0777 and then chmods it to 0666 itself: a chmod ignores the
// umask, so 969 of the cluster's files came out world-writable. This thread does nothing but run
// PGlite, and Node's fs module is its own here (one per thread), so its file-mode calls drop the
// group and other bits before they reach the disk. PGlite only ever reads modes back from what it set.
const OWNER_ONLY = ~0o077;
const ownerOnly = (mode, fallback) => {
  const value = typeof mode === 'string' ? Number.parseInt(mode, 8) : typeof mode === 'number' ? mode : fallback;
  return value & OWNER_ONLY;
};
const { chmodSync, fchmodSync, mkdirSync, openSync, writeFileSync } = fs;
fs.chmodSync = (path, mode) => chmodSync(path, ownerOnly(mode, 0o600));
fs.fchmodSync = (fd, mode) => fchmodSync(fd, ownerOnly(mode, 0o600));
fs.mkdirSync = (path, options) => mkdirSync(path, typeof options === 'object' && options !== null
  ? { ...options, mode: ownerOnly(options.mode, 0o777) }
  : ownerOnly(options, 0o777));
fs.openSync = (path, flags, mode) => openSync(path, flags, ownerOnly(mode, 0o666));
fs.writeFileSync = (path, data, options) => writeFileSync(path, data, typeof options === 'string'
  ? { encoding: options, mode: 0o600 }
  : { ...options, mode: ownerOnly(options?.mode, 0o666) });
// `import { mkdirSync } from 'fs'` and `import * as fs` see the functions above too.
syncBuiltinESMExports();

// Imported only now, so that PGlite sees the file functions above whichever way it reaches them.
const { PGlite } = await import('@electric-sql/pglite');
const { PGLiteSocketHandler, PGLiteSocketServer } = await import('@electric-sql/pglite-socket');

// One connection. pglite-socket 0.2.17 multiplexes several connections onto PGlite's single
// backend: it queues protocol messages and, while one connection is inside a transaction, runs only
// that connection's messages. So queries are never concurrent (a larger pool buys no throughput),
// and every connection shares one session: SET, LISTEN, session advisory locks, temporary tables and
// prepared statement names leak between them. With exactly one connection, the single pg.Pool
// client of the main thread has the session to itself, and a stray client (psql on the socket)
// is turned away rather than allowed to interleave with the store's transactions.
const MAX_CONNECTIONS = 1;

// pglite-socket writes every chunk PGlite hands back as its own socket write, and a query's answer
// comes back in several: about two writes per query, each a system call, 12% of this thread's
// profile at one invitation at a time. Corking the socket while the handler works through the
// messages of one read sends them as one write: 9.6 against 10.7 ms of the service's CPU per
// invitation (six alternated pairs, one at a time). The handler's own behaviour is unchanged: same
// messages, same order; uncork runs even when the handler throws.
const handleData = PGLiteSocketHandler.prototype.handleData;
PGLiteSocketHandler.prototype.handleData = async function corkedHandleData(data) {
  const socket = this.socket;
  socket?.cork();
  try {
    return await handleData.call(this, data);
  } finally {
    socket?.uncork();
  }
};

const { pgDataDir, socketPath } = workerData;
let db = null;
let server = null;

function log(level, message) {
  parentPort.postMessage({ type: 'log', level, message });
}

async function listen() {
  if (socketPath) {
    try {
      server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: MAX_CONNECTIONS });
      await server.start();
      // node-postgres reaches a Unix socket as <dir>/.s.PGSQL.<port>.
      return { socketDir: dirname(socketPath), port: Number(basename(socketPath).split('.').at(-1)) };
    } catch (error) {
      log('warn', `Unix socket ${socketPath} failed (${error.message}); falling back to 127.0.0.1`);
    }
  }
  server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: MAX_CONNECTIONS });
  await server.start();
  const [host, port] = server.getServerConn().split(':');
  return { host, port: Number(port) };
}

async function stop() {
  try {
    await server?.stop();
    await db?.close();
  } catch (error) {
    log('error', `closing PGlite failed: ${error.stack ?? error.message}`);
  }
  parentPort.postMessage({ type: 'stopped' });
  parentPort.close();
}

parentPort.on('message', (message) => {
  if (message?.type === 'stop') void stop();
});

try {
  db = await PGlite.create({ dataDir: pgDataDir });
  const endpoint = await listen();
  parentPort.postMessage({ type: 'ready', endpoint });
} catch (error) {
  parentPort.postMessage({ type: 'failed', message: error?.stack ?? String(error) });
  await db?.close().catch(() => undefined);
  parentPort.close();
}
