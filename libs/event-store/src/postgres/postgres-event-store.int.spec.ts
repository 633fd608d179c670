import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { runEventStoreContract } from '../testing/event-store.contract.js';
import { newEvent } from '../testing/contract-support.js';
import { WrongExpectedRevisionError } from '../event-store.port.js';
import { createPostgresEventStore } from './postgres-event-store.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `es_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
const pools: pg.Pool[] = [];

/** Waits up to 5 s for a condition that a subscription makes true. */
const until = async (condition: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
};

function newPool(max = 12): pg.Pool {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max });
  pools.push(pool);
  return pool;
}

afterAll(async () => {
  await pools[0]?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await Promise.all(pools.map((pool) => pool.end()));
});

runEventStoreContract('PostgreSQL server', async () => {
  const store = await createPostgresEventStore({ pool: newPool(), schema });
  return { store, close: () => store.close() };
});

describe('PostgreSQL adapter', () => {
  it('reads several streams through their index whatever plan the server caches, never by scanning the log', async () => {
    const planSchema = `${schema}_plan`;
    // One connection that always uses the generic plan of a prepared statement (the plan the server
    // may cache after a few runs): a plain join against unnest() got a scan of the whole log there.
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1, options: '-c plan_cache_mode=force_generic_plan' });
    pools.push(pool);
    const store = await createPostgresEventStore({ pool, schema: planSchema, listen: false, preparedStatements: true });
    try {
      for (let batch = 0; batch < 20; batch += 1) {
        await store.appendToStream('big', Array.from({ length: 100 }, (_, index) => newEvent('Grown', { index })), { expectedRevision: 'any' });
        await store.appendToStream(`small-${batch}`, [newEvent('Grown', { batch })], { expectedRevision: 'no_stream' });
      }
      await pool.query(`ANALYZE "${planSchema}".events`);
      const read = await store.readStreams(['big', 'small-3', 'missing'], { fromRevisions: new Map([['big', 1_990]]) });
      expect(read.get('big')?.map((event) => event.revision)).toEqual([1_990, 1_991, 1_992, 1_993, 1_994, 1_995, 1_996, 1_997, 1_998, 1_999]);
      expect(read.get('small-3')).toHaveLength(1);
      expect(read.get('missing')).toEqual([]);
      const { rows } = await pool.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE statement LIKE '%unnest(%'`);
      expect(rows).toHaveLength(1);
      const plan = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE "${rows[0]?.name ?? ''}"('{big,small-3}', '{1990,0}')`);
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toContain('Index');
      expect(text).not.toContain('Seq Scan on events');
    } finally {
      await store.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${planSchema}" CASCADE`);
    }
  });

  it('wakes a catch-up-only subscriber on an append only while it wants it, or when kicked', async () => {
    const lazySchema = `${schema}_lazy`;
    const pool = newPool(4);
    // A poll interval far beyond the test: only a wake-up can hand the event over in time.
    const store = await createPostgresEventStore({ pool, schema: lazySchema, listen: false, pollIntervalMs: 600_000 });
    try {
      let wanted = false;
      let kick: (() => void) | null = null;
      const seen: string[] = [];
      const caughtUp: (bigint | null)[] = [];
      const subscription = store.subscribeToAll({
        after: null,
        handler: async (event) => { seen.push(event.type); },
        onCaughtUp: (position) => caughtUp.push(position),
        catchUpOnly: { wanted: () => wanted, onKick: (wake) => { kick = wake; } },
      });
      await until(() => caughtUp.length > 0);
      await store.appendToStream('lazy-1', [newEvent('First')], { expectedRevision: 'no_stream' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toEqual([]);
      (kick as (() => void) | null)?.();
      await until(() => seen.length === 1);
      expect(seen).toEqual(['First']);

      wanted = true;
      await store.appendToStream('lazy-2', [newEvent('Second')], { expectedRevision: 'no_stream' });
      await until(() => seen.length === 2);
      expect(seen).toEqual(['First', 'Second']);
      await subscription.stop();
    } finally {
      await store.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${lazySchema}" CASCADE`);
    }
  });

  it('never reads what a catch-up-only subscriber says its inline work has done (skipTo)', async () => {
    const skipSchema = `${schema}_skip`;
    const pool = newPool(4);
    const store = await createPostgresEventStore({ pool, schema: skipSchema, listen: false, pollIntervalMs: 10 });
    try {
      const first = await store.appendToStream('skip-1', [newEvent('Done1'), newEvent('Done2')], { expectedRevision: 'no_stream' });
      const second = await store.appendToStream('skip-2', [newEvent('Done3')], { expectedRevision: 'no_stream' });
      let done: bigint | null = second.position;
      let asked = 0;
      const seen: string[] = [];
      const subscription = store.subscribeToAll({
        after: null,
        handler: async (event) => { seen.push(event.type); },
        catchUpOnly: { wanted: () => false, onKick: () => undefined, skipTo: async () => { asked += 1; return done; } },
      });
      await store.appendToStream('skip-3', [newEvent('Left1'), newEvent('Left2')], { expectedRevision: 'no_stream' });
      await until(() => seen.length === 2);
      // A position behind the subscription's own moves nothing back.
      done = first.position;
      await store.appendToStream('skip-4', [newEvent('Left3')], { expectedRevision: 'no_stream' });
      await until(() => seen.length === 3);
      // At rest (20 polls here) it is not asked again: only an append makes it worth a look. (The
      // last append may be read before its wake-up is counted, and asked about once more after.)
      await new Promise((resolve) => setTimeout(resolve, 100));
      const askedAtRest = asked;
      await new Promise((resolve) => setTimeout(resolve, 200));
      await subscription.stop();
      expect(seen).toEqual(['Left1', 'Left2', 'Left3']);
      expect(asked).toBe(askedAtRest);
    } finally {
      await store.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${skipSchema}" CASCADE`);
    }
  });

  it('migrates once when several processes start at the same time', async () => {
    const racingSchema = `${schema}_race`;
    const racers = Array.from({ length: 4 }, () => newPool(2));
    try {
      const stores = await Promise.all(racers.map((pool) => createPostgresEventStore({ pool, schema: racingSchema, listen: false })));
      const appended = await stores[0]?.appendToStream('s', [newEvent('Started')], { expectedRevision: 'no_stream' });
      expect(appended?.nextRevision).toBe(0);
    } finally {
      await racers[0]?.query(`DROP SCHEMA IF EXISTS "${racingSchema}" CASCADE`);
    }
  });

  it('maps the unique violation of a racing insert that skipped the lock to WrongExpectedRevisionError', async () => {
    const pool = newPool(3);
    const store = await createPostgresEventStore({ pool, schema, listen: false });
    const streamId = `rogue-${randomUUID()}`;
    await store.appendToStream(streamId, [newEvent('First')], { expectedRevision: 'no_stream' });
    const rogue = await pool.connect();
    try {
      await rogue.query('BEGIN');
      await rogue.query(
        `INSERT INTO "${schema}".events (id, stream_id, revision, type, data, metadata) VALUES ($1, $2, 1, 'Rogue', '{}', '{}')`,
        [randomUUID(), streamId],
      );
      // The store's insert of revision 1 now waits on the rogue's uncommitted unique key.
      // Its refusal is taken at once: it may come before COMMIT's own answer (a rejection left
      // unhandled meanwhile fails the test).
      const racing = store.appendToStream(streamId, [newEvent('Second')], { expectedRevision: 0 }).then(() => null, (failure: unknown) => failure);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await rogue.query('COMMIT');

      const error = await racing;
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ streamId, expected: 0, actual: 1 });
    } finally {
      rogue.release();
      await store.close();
    }
  });
});
