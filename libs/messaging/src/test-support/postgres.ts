import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  pool: pg.Pool;
  schema: string;
  drop(): Promise<void>;
}

/** A schema no other test file uses; dropped with everything in it afterwards. */
export const createTestDatabase = async (suite: string): Promise<TestDatabase> => {
  const schema = `test_messaging_${suite.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
  await pool.query(`CREATE SCHEMA "${schema}"`);
  return {
    pool,
    schema,
    drop: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
};
