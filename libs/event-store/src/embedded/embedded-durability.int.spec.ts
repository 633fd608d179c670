import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { RecordedEvent } from '../event-store.port.js';
import { DataDirInUseError } from './data-dir-lock.js';
import { startEmbeddedDatabase } from './embedded-database.js';
import { createEmbeddedEventStore } from './embedded-event-store.js';

/*
 * The other process must run the real store code, compiled: Node 20 cannot run TypeScript. The
 * library is compiled on its own (tsconfig.test-build.json, incremental: about 2 s) into a folder that
 * mirrors dist/, and the worker is copied exactly as the production build must copy it.
 */
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const buildDir = join(repoRoot, 'libs/event-store/.test-build/libs/event-store/src');
const compiledIndex = join(buildDir, 'index.js');
const childScript = join(repoRoot, 'libs/event-store/test-fixtures/embedded-child.mjs');
const quiet = pino({ level: 'warn' });
const ACKS_BEFORE_KILL = 150;

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function runChild(dataDir: string, mode: 'open' | 'append', onLine: (line: string, kill: () => void) => void = () => undefined): Promise<ChildResult & { pid: number }> {
  const child = spawn(process.execPath, [childScript, compiledIndex, dataDir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line, () => child.kill('SIGKILL'));
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr, pid: child.pid ?? -1 }));
  });
}

async function readEverything(read: (after: bigint | null) => Promise<RecordedEvent[]>): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (let page = await read(null); page.length > 0; page = await read(page.at(-1)?.position ?? null)) all.push(...page);
  return all;
}

describe('embedded PGlite across processes', () => {
  let dataDir = '';

  beforeAll(async () => {
    await promisify(execFile)(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'libs/event-store/tsconfig.test-build.json'], { cwd: repoRoot });
    await copyFile(join(repoRoot, 'libs/event-store/src/embedded/pglite-worker.mjs'), join(buildDir, 'embedded/pglite-worker.mjs'));
    dataDir = await mkdtemp(join(tmpdir(), 'es-durability-'));
  }, 60_000);

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a second process at once, naming the holder, while this process holds DATA_DIR', async () => {
    const database = await startEmbeddedDatabase({ dataDir, logger: quiet });
    try {
      const started = Date.now();
      const second = await runChild(dataDir, 'open');
      const elapsed = Date.now() - started;

      expect(second.code).toBe(3);
      expect(second.stderr).toContain(
        `refused: DATA_DIR ${dataDir} is in use by another process (pid ${process.pid}); stop it or set DATA_DIR to another folder`,
      );
      // Node start-up and imports only: the refusal comes before PGlite is even loaded.
      expect(elapsed).toBeLessThan(5000);
      await expect(startEmbeddedDatabase({ dataDir, logger: quiet })).rejects.toBeInstanceOf(DataDirInUseError);
    } finally {
      await database.stop();
    }
  }, 30_000);

  it('keeps every acknowledged append through kill -9, and the stale lock does not block the next start', async () => {
    const acknowledged = new Map<string, bigint>();
    const killed = await runChild(dataDir, 'append', (line, kill) => {
      const [word, id, position] = line.split(' ');
      if (word !== 'ack' || id === undefined || position === undefined) return;
      acknowledged.set(id, BigInt(position));
      if (acknowledged.size === ACKS_BEFORE_KILL) kill();
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(acknowledged.size).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
    const staleLock: unknown = JSON.parse(await readFile(join(dataDir, 'event-store.lock'), 'utf8'));
    expect(staleLock).toMatchObject({ pid: killed.pid });

    const reopened = await createEmbeddedEventStore({ dataDir, logger: quiet });
    try {
      const stored = await readEverything((after) => reopened.store.readAll({ after, maxCount: 500 }));
      const positions = new Map(stored.map((event) => [event.id, event.position]));
      const lost = [...acknowledged].filter(([id, position]) => positions.get(id) !== position);

      expect(lost).toEqual([]);
      // At most the append in flight when the process died committed without being acknowledged.
      expect(stored.length - acknowledged.size).toBeLessThanOrEqual(1);
    } finally {
      await reopened.stop();
    }
  }, 40_000);
});
