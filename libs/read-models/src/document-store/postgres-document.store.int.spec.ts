import { candidatesProjection } from '../candidates/candidates.projection.js';
import pg from 'pg';
import { rebuildCollectionName } from '../shared/document-store.port.js';
import { TEST_DATABASE_URL, openTestDatabase } from '../test-support/postgres.js';
import { documentStoreContract } from '../testing/document-store.contract.js';
import { createPostgresDocumentStore } from './postgres-document.store.js';
import { indexName, primaryKeyName, selectSql, tableName } from './postgres-sql.js';

documentStoreContract('PostgreSQL server', async () => {
  const database = await openTestDatabase('rm_contract');
  const store = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
  return {
    store,
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
});

describe('PostgreSQL document store indexes', () => {
  it('answers the candidates list (filter, order, keyset) from its expression index', async () => {
    const database = await openTestDatabase('rm_explain');
    const client = await database.pool.connect();
    try {
      const store = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
      await store.prepare([candidatesProjection]);
      const table = `"${database.schema}"."${tableName('candidates')}"`;
      const { text, values } = selectSql(table, {
        where: [{ field: 'workspaceId', op: 'eq', value: 'w1' }, { field: 'mode', op: 'eq', value: 'live' }],
        orderBy: [{ field: 'createdAt', direction: 'desc' }, { field: 'id', direction: 'desc' }],
        after: ['2026-10-01T09:00:00.000Z', 'c9'],
        limit: 51,
      });
      // An empty table would be read sequentially; forbidding it shows whether the index matches at all.
      await client.query('SET enable_seqscan = off');
      await client.query('SET enable_sort = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
      const planText = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      const [listIndex] = candidatesProjection.indexes;
      if (listIndex === undefined) throw new Error('candidates index expected');
      expect(planText).toContain(indexName(tableName('candidates'), listIndex));
      expect(planText).not.toMatch(/Sort/);
    } finally {
      client.release();
      await database.drop();
    }
  });

  it("builds a rebuild's indexes on the twins its fresh prepare made, and makes twins no fresh prepare made", async () => {
    const database = await openTestDatabase('rm_twins');
    const indexesOf = async (collection: string) => (await database.pool.query<{ indexname: string }>(
      'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2', [database.schema, tableName(collection)],
    )).rows.map((row) => row.indexname).sort();
    try {
      const store = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
      const twin = { ...candidatesProjection, name: rebuildCollectionName('candidates') };
      const expected = [primaryKeyName(tableName(twin.name)), ...twin.indexes.map((index) => indexName(tableName(twin.name), index))].sort();
      await store.prepare([{ ...twin, indexes: [] }], { fresh: true });
      await store.prepare([twin]);
      expect(await indexesOf(twin.name)).toEqual(expected);
      const other = { ...candidatesProjection, name: rebuildCollectionName('others') };
      await store.prepare([other]);
      expect(await indexesOf(other.name)).toHaveLength(other.indexes.length + 1);
    } finally {
      await database.drop();
    }
  });
});

describe('PostgreSQL document store: served JSON and the change feed', () => {
  const team = { name: 'teams', indexes: [], served: (doc: object) => `{"served":${JSON.stringify((doc as { id: string }).id)}}`, announceChanges: true };
  const query = { where: [], orderBy: [{ field: 'id', direction: 'asc' }] as const, limit: 10 };
  const refuse = (): string => {
    throw new Error('rendered although JSON is stored');
  };

  it('serves the JSON stored at write time without rendering, and renders rows stored before it existed', async () => {
    const database = await openTestDatabase('rm_served');
    const store = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
    try {
      await store.prepare([team]);
      await store.applyBatch([], [{ collection: 'teams', id: 't1', doc: { id: 't1' } }, { collection: 'teams', id: 't2', doc: { id: 't2' } }], 1n);
      expect(await store.findServed('teams', query, refuse)).toEqual([{ json: '{"served":"t1"}', keys: ['t1'] }, { json: '{"served":"t2"}', keys: ['t2'] }]);
      await database.pool.query(`UPDATE "${database.schema}"."${tableName('teams')}" SET json = NULL WHERE id = 't2'`);
      expect((await store.findServed('teams', query, (doc) => `rendered:${(doc as { id: string }).id}`)).map(({ json }) => json))
        .toEqual(['{"served":"t1"}', 'rendered:t2']);
    } finally {
      await store.close();
      await database.drop();
    }
  });

  it('tells another process of writes and of a rebuild swapped in, at commit', async () => {
    const database = await openTestDatabase('rm_feed');
    const otherPool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
    const writer = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
    const reader = createPostgresDocumentStore({ pool: otherPool, schema: database.schema, deployment: 'multi-process' });
    let told = 0;
    const watch = reader.watchChanges('teams', () => {
      told += 1;
    });
    const waitUntilTold = async (count: number): Promise<void> => {
      for (let waited = 0; told < count && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(told).toBeGreaterThanOrEqual(count);
    };
    try {
      await writer.prepare([team]);
      for (let waited = 0; !watch.live && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(watch.live).toBe(true);
      const start = told;
      await writer.applyBatch([], [{ collection: 'teams', id: 't1', doc: { id: 't1' } }], 1n);
      await waitUntilTold(start + 1);
      const twin = { ...team, name: rebuildCollectionName('teams') };
      await writer.prepare([twin], { fresh: true });
      const beforeSwap = told;
      await writer.promoteRebuild({ collections: [team], changes: [], checkpoint: 2n });
      await waitUntilTold(beforeSwap + 1);
    } finally {
      watch.close();
      await reader.close();
      await writer.close();
      await otherPool.end();
      await database.drop();
    }
  });
});

describe('PostgreSQL document store between processes', () => {
  it('serves a write made through another pool (another process) to the very next page read', async () => {
    const database = await openTestDatabase('rm_pages');
    const otherPool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
    const reader = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
    const writer = createPostgresDocumentStore({ pool: otherPool, schema: database.schema, deployment: 'multi-process' });
    try {
      await reader.prepare([{ name: 'notes', indexes: [], served: (doc) => JSON.stringify(doc) }]);
      await writer.prepare([{ name: 'notes', indexes: [], served: (doc) => JSON.stringify(doc) }]);
      const query = { where: [], orderBy: [{ field: 'id', direction: 'asc' }] as const, limit: 10 };
      const ids = async () => (await reader.findServed('notes', query, () => 'rendered')).map(({ keys }) => keys[0]);
      for (let round = 1; round <= 5; round += 1) {
        // Read twice (a cache would be filled), write elsewhere, read: the write is there at once.
        await ids();
        expect(await ids()).toHaveLength(round - 1);
        await writer.applyBatch([], [{ collection: 'notes', id: `c${round}`, doc: { id: `c${round}` } }], BigInt(round));
        expect(await ids()).toEqual(Array.from({ length: round }, (_, i) => `c${i + 1}`));
      }
    } finally {
      await reader.close();
      await writer.close();
      await otherPool.end();
      await database.drop();
    }
  });
});

describe("PostgreSQL document store: a rebuild's COPY", () => {
  it('throws the server refusal of rows it is still sending, writes none of them, and leaves the connections usable', async () => {
    const database = await openTestDatabase('rm_copy');
    const store = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
    try {
      const twin = { name: rebuildCollectionName('notes'), indexes: [], served: (doc: object) => JSON.stringify(doc) };
      await store.prepare([twin], { fresh: true });
      const note = (id: string) => ({ collection: twin.name, id, doc: { id, text: 'x'.repeat(2_000) }, firstWrite: true });
      await store.loadRebuilt?.([note('taken')], 1n);
      // Told wrongly that no row holds 'taken': the server refuses it first, with several MB still to send.
      const many = [note('taken'), ...Array.from({ length: 5_000 }, (_, index) => note(`n${index}`))];
      await expect(store.loadRebuilt?.(many, 2n)).rejects.toThrow(/duplicate key/);
      const { rows } = await database.pool.query<{ count: string }>(`SELECT count(*) FROM "${database.schema}"."${tableName(twin.name)}"`);
      expect(rows[0]?.count).toBe('1');
      // Every connection of the pool still answers (the next writes use them).
      await store.loadRebuilt?.(Array.from({ length: 10 }, (_, index) => note(`m${index}`)), 3n);
      const counted = await Promise.all(Array.from({ length: 4 }, () => database.pool.query<{ count: string }>(`SELECT count(*) FROM "${database.schema}"."${tableName(twin.name)}"`)));
      expect(counted.map((result) => result.rows[0]?.count)).toEqual(['11', '11', '11', '11']);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
