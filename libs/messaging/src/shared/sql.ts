import type { Pool } from 'pg';
import { inTransaction, quoteIdent } from '#platform';

/** A table of the messaging schema, quoted; the schema name comes from configuration, never from a request. */
export const qualified = (schema: string, table: string): string => `${quoteIdent(schema)}.${quoteIdent(table)}`;

/**
 * Runs DDL one statement at a time (PGlite through a single-connection pool accepts nothing else)
 * under an advisory lock taken by a plain statement, so two processes starting together do not race.
 */
export const runDdl = (pool: Pool, schema: string, statements: readonly string[]): Promise<void> =>
  inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`messaging-ddl:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    for (const statement of statements) await client.query(statement);
  });

/** pg returns timestamptz as Date; every time leaves this library as `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export const isoTime = (value: unknown): string => (value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString());
