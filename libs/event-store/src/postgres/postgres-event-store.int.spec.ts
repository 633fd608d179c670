import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { runEventStoreContract } from '../event-store.contract.js';
import { newEvent } from '../contract/contract-support.js';
import { WrongExpectedRevisionError } from '../event-store.port.js';
import { createPostgresEventStore } from './postgres-event-store.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `es_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
const pools: pg.Pool[] = [];

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
      const racing = store.appendToStream(streamId, [newEvent('Second')], { expectedRevision: 0 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await rogue.query('COMMIT');

      const error = await racing.then(() => null, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ streamId, expected: 0, actual: 1 });
    } finally {
      rogue.release();
      await store.close();
    }
  });
});
