import { candidatesProjection } from '../candidates/candidates.projection.js';
import { openTestDatabase } from '../test-support/postgres.js';
import { documentStoreContract } from './document-store.contract.js';
import { createPostgresDocumentStore } from './postgres-document.store.js';
import { indexName, selectSql, tableName } from './postgres-sql.js';

documentStoreContract('PostgreSQL server', async () => {
  const database = await openTestDatabase('rm_contract');
  return { store: createPostgresDocumentStore({ pool: database.pool, schema: database.schema }), close: database.drop };
});

describe('PostgreSQL document store indexes', () => {
  it('answers the candidates list (filter, order, keyset) from its expression index', async () => {
    const database = await openTestDatabase('rm_explain');
    const client = await database.pool.connect();
    try {
      const store = createPostgresDocumentStore({ pool: database.pool, schema: database.schema });
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
});
