import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { StatementScript } from './statement-script.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });

afterAll(() => pool.end());

describe('StatementScript: one round trip, results read by name (PostgreSQL server)', () => {
  it('answers each name its statements\' rows in order, whatever comes before them', async () => {
    const client = await pool.connect();
    try {
      const results = await new StatementScript()
        .add('BEGIN')
        .add('SET LOCAL enable_seqscan = off')
        .add('SELECT 1 AS one', 'first')
        .addAll(['SELECT 2 AS n', 'SELECT 3 AS n'], 'pair')
        .add('SELECT 4 AS four')
        .add('COMMIT')
        .run(client);
      expect(results.rows('first')).toEqual([{ one: 1 }]);
      expect(results.all('pair').map((result) => result.rows)).toEqual([[{ n: 2 }], [{ n: 3 }]]);
      expect(results.rows('missing')).toEqual([]);
    } finally {
      client.release();
    }
  });

  it('fails loudly when a part was two statements, instead of shifting the results after it', async () => {
    const client = await pool.connect();
    try {
      await expect(new StatementScript().add('SELECT 1; SELECT 2').add('SELECT 3 AS three', 'three').run(client)).rejects.toThrow(/not one statement/);
    } finally {
      client.release();
    }
  });
});
