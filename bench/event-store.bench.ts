import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createEmbeddedEventStore, createPostgresEventStore } from '#event-store';
import type { EventStore, ExpectedRevision, NewEvent } from '#event-store';

/** Appends per second through the store, against raw INSERTs of the same rows through the same pool. */
export interface Row {
  name: string;
  opsPerSec: number;
  baselineOpsPerSec: number;
  ratio: number;
}

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MEASURE_MS = 1500;
const WARMUP_OPS = 20;
const STREAMS = 16;
const SHAPES = [1, 100];
const CONCURRENT = 16;

function newEvents(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, index) => {
    const id = randomUUID();
    return { id, type: 'Benchmarked', data: { index, note: 'a short payload like most domain events' }, metadata: { correlationId: id, causationId: null, actor: 'system', requestId: id, time: new Date().toISOString() } };
  });
}

/** Runs `op` back to back for MEASURE_MS after a warm-up: one append in flight, like one command handler. */
async function opsPerSecond(op: (index: number) => Promise<void>): Promise<number> {
  for (let index = 0; index < WARMUP_OPS; index += 1) await op(index);
  const started = performance.now();
  let done = 0;
  while (performance.now() - started < MEASURE_MS) {
    await op(WARMUP_OPS + done);
    done += 1;
  }
  return done / ((performance.now() - started) / 1000);
}

function storeOp(store: EventStore, prefix: string, eventsPerAppend: number): (index: number) => Promise<void> {
  const revisions = new Map<string, number>();
  return async (index) => {
    const streamId = `${prefix}-${index % STREAMS}`;
    const last = revisions.get(streamId);
    const expectedRevision: ExpectedRevision = last === undefined ? 'no_stream' : last;
    const result = await store.appendToStream(streamId, newEvents(eventsPerAppend), { expectedRevision });
    revisions.set(streamId, result.nextRevision);
  };
}

/** The same rows, one transaction per append, with no lock and no revision check. */
function baselineOp(pool: pg.Pool, table: string, prefix: string, eventsPerAppend: number): (index: number) => Promise<void> {
  const revisions = new Map<string, number>();
  return async (index) => {
    const streamId = `${prefix}-${index % STREAMS}`;
    const first = (revisions.get(streamId) ?? -1) + 1;
    const events = newEvents(eventsPerAppend);
    const values = events.map((_, row) => `($${row * 6 + 1}, $${row * 6 + 2}, $${row * 6 + 3}, $${row * 6 + 4}, $${row * 6 + 5}, $${row * 6 + 6})`);
    const params = events.flatMap((event, row) => [event.id, streamId, first + row, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata)]);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${table} (id, stream_id, revision, type, data, metadata) VALUES ${values.join(', ')}`, params);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    revisions.set(streamId, first + eventsPerAppend - 1);
  };
}

/** `op` from CONCURRENT callers at once for MEASURE_MS: operations per second. */
async function concurrentOpsPerSecond(op: (caller: number) => Promise<void>): Promise<number> {
  const callers = Array.from({ length: CONCURRENT }, (_, caller) => caller);
  await Promise.all(callers.map(async (caller) => { for (let index = 0; index < 5; index += 1) await op(caller); }));
  const started = performance.now();
  let done = 0;
  await Promise.all(callers.map(async (caller) => {
    while (performance.now() - started < MEASURE_MS) {
      await op(caller);
      done += 1;
    }
  }));
  return done / ((performance.now() - started) / 1000);
}

/**
 * 16 callers appending one event each to streams of their own at once (16 API requests on 16
 * assessments), against 16 callers running raw one-row INSERT transactions through a pool as large.
 */
async function benchConcurrent(store: EventStore, pool: pg.Pool, eventsTable: string, log: (line: string) => void): Promise<Row> {
  const baselineTable = `${eventsTable}_concurrent_baseline`;
  await pool.query(`CREATE TABLE ${baselineTable} (LIKE ${eventsTable} INCLUDING ALL)`);
  const name = `PostgreSQL server: ${CONCURRENT} concurrent single-event appends to different streams`;
  // Caller n always appends to stream n (STREAMS = CONCURRENT): no two callers share a stream.
  const raw = baselineOp(pool, baselineTable, randomUUID(), 1);
  const baselineOpsPerSec = await concurrentOpsPerSecond((caller) => raw(caller));
  const ops = storeOp(store, randomUUID(), 1);
  const opsPerSec = await concurrentOpsPerSecond((caller) => ops(caller));
  const row = { name, opsPerSec: Math.round(opsPerSec), baselineOpsPerSec: Math.round(baselineOpsPerSec), ratio: Number((opsPerSec / baselineOpsPerSec).toFixed(2)) };
  log(`${name}: store ${row.opsPerSec} appends/s, ${CONCURRENT} concurrent raw INSERT transactions ${row.baselineOpsPerSec}/s, ratio ${row.ratio}`);
  return row;
}

async function benchAdapter(adapter: string, store: EventStore, pool: pg.Pool, eventsTable: string, log: (line: string) => void): Promise<Row[]> {
  const baselineTable = `${eventsTable}_baseline`;
  await pool.query(`CREATE TABLE ${baselineTable} (LIKE ${eventsTable} INCLUDING ALL)`);
  const rows: Row[] = [];
  for (const eventsPerAppend of SHAPES) {
    const name = `${adapter}: ${eventsPerAppend} event${eventsPerAppend === 1 ? '' : 's'} per append`;
    log(`${name}: measuring...`);
    const baselineOpsPerSec = await opsPerSecond(baselineOp(pool, baselineTable, randomUUID(), eventsPerAppend));
    const opsPerSec = await opsPerSecond(storeOp(store, randomUUID(), eventsPerAppend));
    const row = { name, opsPerSec: Math.round(opsPerSec), baselineOpsPerSec: Math.round(baselineOpsPerSec), ratio: Number((opsPerSec / baselineOpsPerSec).toFixed(2)) };
    log(`${name}: store ${row.opsPerSec} appends/s (${row.opsPerSec * eventsPerAppend} events/s), raw INSERT ${row.baselineOpsPerSec} appends/s, ratio ${row.ratio}`);
    rows.push(row);
  }
  return rows;
}

export async function benchEventStore(log: (line: string) => void): Promise<Row[]> {
  const logger = pino({ level: 'warn' });
  const rows: Row[] = [];

  const schema = `es_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const serverPool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  try {
    const store = await createPostgresEventStore({ pool: serverPool, schema, listen: false, logger });
    rows.push(...(await benchAdapter('PostgreSQL server', store, serverPool, store.tables.events, log)));
    await store.close();
    const concurrentPool = new pg.Pool({ connectionString: DATABASE_URL, max: CONCURRENT });
    try {
      const concurrentStore = await createPostgresEventStore({ pool: concurrentPool, schema, listen: false, logger });
      rows.push(await benchConcurrent(concurrentStore, concurrentPool, concurrentStore.tables.events, log));
      await concurrentStore.close();
    } finally {
      await concurrentPool.end();
    }
  } finally {
    await serverPool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await serverPool.end();
  }

  const dataDir = await mkdtemp(join(tmpdir(), 'es-bench-'));
  try {
    log('embedded PGlite: starting (first start runs initdb)...');
    const embedded = await createEmbeddedEventStore({ dataDir, logger });
    try {
      rows.push(...(await benchAdapter('embedded PGlite', embedded.store, embedded.database.pool, embedded.store.tables.events, log)));
    } finally {
      await embedded.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1]?.endsWith('event-store.bench.js')) {
  const rows = await benchEventStore((line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
}
