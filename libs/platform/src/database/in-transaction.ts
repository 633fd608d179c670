import type pg from 'pg';

/** A PostgreSQL identifier, quoted; names come from configuration and code, never from a request. */
export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Runs `work` in one transaction on a client of its own: committed if it returns, rolled back if it
 * throws. A client whose rollback fails too is released as broken, so the pool never reuses it.
 */
export const inTransaction = async <T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query('BEGIN');
    result = await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').then(
      () => client.release(),
      (rollbackError: unknown) => client.release(rollbackError instanceof Error ? rollbackError : true),
    );
    throw error;
  }
  client.release();
  return result;
};
