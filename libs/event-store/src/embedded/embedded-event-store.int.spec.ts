import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { runEventStoreContract } from '../testing/event-store.contract.js';
import { newEvent } from '../testing/contract-support.js';
import { createEmbeddedEventStore } from './embedded-event-store.js';

runEventStoreContract('embedded PGlite', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'es-contract-'));
  const embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
  return {
    store: embedded.store,
    close: async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

describe('embedded PGlite, the log\'s only writer', () => {
  it('knows the streams written before a restart and reads any other stream without a statement', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'es-known-'));
    try {
      const first = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
      await first.store.appendToStream('known-1', [newEvent('Started')], { expectedRevision: 'no_stream' });
      await first.stop();

      const embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
      try {
        const pool = embedded.database.pool;
        const query = pool.query.bind(pool);
        let statements = 0;
        pool.query = ((...args: Parameters<typeof query>) => { statements += 1; return query(...args); }) as typeof pool.query;
        expect((await embedded.store.readStream('known-1')).map((event) => event.type)).toEqual(['Started']);
        expect(statements).toBe(1);
        expect(await embedded.store.readStream('never-written')).toEqual([]);
        expect(await embedded.store.readStreams(['never-written', 'also-not'])).toEqual(new Map([['never-written', []], ['also-not', []]]));
        expect(statements).toBe(1);
        // A stream it appends to is read from the database from then on.
        await embedded.store.appendToStream('never-written', [newEvent('Started')], { expectedRevision: 'no_stream' });
        expect((await embedded.store.readStream('never-written')).map((event) => event.revision)).toEqual([0]);
      } finally {
        await embedded.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('embedded PGlite, one connection', () => {
  it('appends without the append lock (its transactions cannot overlap), concurrent appends still committed in position order', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'es-unlocked-'));
    const embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }) });
    try {
      const pool = embedded.database.pool;
      const texts: string[] = [];
      const wrapped = new WeakSet<object>();
      const connect = pool.connect.bind(pool) as () => Promise<import('pg').PoolClient>;
      pool.connect = (async () => {
        const client = await connect();
        if (!wrapped.has(client)) {
          wrapped.add(client);
          const query = client.query.bind(client) as (...args: unknown[]) => unknown;
          client.query = ((...args: unknown[]) => {
            const [config] = args;
            texts.push(typeof config === 'string' ? config : String((config as { text?: string }).text ?? ''));
            return query(...args);
          }) as typeof client.query;
        }
        return client;
      }) as typeof pool.connect;

      const results = await Promise.all(Array.from({ length: 16 }, (_, index) =>
        embedded.store.appendToStream(`unlocked-${index}`, [newEvent('Started'), newEvent('Continued')], { expectedRevision: 'no_stream' })));
      // The statements seen are the appends' own, so the absence of the lock below says something.
      expect(texts).toContainEqual(expect.stringMatching(/INSERT INTO \S*events \(id, stream_id, revision/));
      expect(texts.join('\n')).not.toContain('pg_advisory_xact_lock');
      const all = await embedded.store.readAll({ after: null, maxCount: 100 });
      expect(all).toHaveLength(32);
      expect(all.map((event) => event.position)).toEqual(all.map((event) => event.position).sort((a, b) => (a < b ? -1 : 1)));
      expect(new Set(all.map((event) => event.position)).size).toBe(32);
      // Each append is answered with the position of its own last event.
      for (const result of results) expect(all.find((event) => event.position === result.position)?.revision).toBe(1);
    } finally {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('embedded PGlite statistics', () => {
  it('refreshes them once the log has grown, so a plan cached while a table was empty is made again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'es-statistics-'));
    const embedded = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'warn' }), statisticsIntervalMs: 100 });
    // The pool has PGlite's one session: a statement prepared through it stays prepared.
    const pool = embedded.database.pool;
    const plan = async () => (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE grown_join('{1,2}')`)).rows.map((row) => row['QUERY PLAN']).join('\n');
    const tuples = async () => (await pool.query<{ tuples: number }>(`SELECT reltuples::int AS tuples FROM pg_class WHERE relname = 'grown'`)).rows[0]?.tuples ?? -1;
    try {
      await pool.query('CREATE TABLE grown (id int PRIMARY KEY, value text)');
      // Planned, and its generic plan cached, while the table is empty. (PostgreSQL moves a statement
      // to its generic plan after five runs when that plan looks no worse; forced here.)
      await pool.query('SET plan_cache_mode = force_generic_plan');
      const join = { name: 'grown_join', text: 'SELECT g.value FROM unnest($1::int[]) AS u(id) JOIN grown g ON g.id = u.id' };
      for (let run = 0; run < 6; run += 1) await pool.query({ ...join, values: [[1, 2]] });
      await pool.query(`INSERT INTO grown SELECT g, 'v' || g FROM generate_series(1, 20000) g`);
      expect(await plan()).toContain('Seq Scan on grown');

      await embedded.store.appendToStream('grown-log', Array.from({ length: 1_000 }, (_, index) => newEvent('Grown', { index })), { expectedRevision: 'no_stream' });
      const deadline = Date.now() + 20_000;
      while ((await tuples()) < 10_000 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
      expect(await tuples()).toBeGreaterThan(10_000);
      expect(await plan()).not.toContain('Seq Scan on grown');
    } finally {
      await pool.query('RESET plan_cache_mode').catch(() => undefined);
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
