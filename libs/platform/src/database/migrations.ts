import type pg from 'pg';
import { Umzug, type UmzugStorage } from 'umzug';
import { inTransaction, quoteIdent } from './in-transaction.js';

/**
 * One numbered, forward-only change of the tables that are not derived from the log (the log itself,
 * its seals and links, person keys, snapshots, the delivery log, the outbox, checkpoints, leases).
 * Read models are rebuilt instead (docs/operations.md, "Upgrades"). A migration never changes once
 * released: the next change is the next number. `up` runs on the migrating transaction's client only.
 */
export interface Migration {
  /** `0001-baseline`, `0002-…`: applied in this order, recorded under `<component>/<name>`. */
  name: string;
  up(client: pg.PoolClient): Promise<void>;
}

export interface MigrationSet {
  /** Whose tables these are (`log`, `audit`, `messaging`, `cluster`): names the history rows. */
  component: string;
  /** The schema that holds the history table (`schema_migrations`) of this set. */
  schema: string;
  migrations: readonly Migration[];
}

/** Umzug keeps its history in the history table of the set's schema, in the migrating transaction. */
const historyStorage = (set: MigrationSet): UmzugStorage<pg.PoolClient> => {
  const table = `${quoteIdent(set.schema)}.schema_migrations`;
  const prefix = `${set.component}/`;
  return {
    executed: async ({ context }) => {
      const { rows } = await context.query<{ name: string }>(`SELECT name FROM ${table} WHERE starts_with(name, $1) ORDER BY name`, [prefix]);
      return rows.map((row) => row.name.slice(prefix.length));
    },
    logMigration: async ({ name, context }) => {
      await context.query(`INSERT INTO ${table} (name) VALUES ($1)`, [prefix + name]);
    },
    unlogMigration: () => Promise.reject(new Error('migrations are forward-only: nothing is ever undone')),
  };
};

/**
 * Applies the migrations of `set` that this database has not had, in order, and returns their names.
 * Safe when several processes start at once: the whole run is one transaction under a
 * transaction-scoped advisory lock on the history's schema, so the second process waits, then finds
 * nothing pending; a process that dies mid-run leaves nothing half-applied (PostgreSQL's DDL is
 * transactional) and its lock goes with its connection. On the embedded store the lock never waits.
 */
export const runMigrations = (pool: pg.Pool, set: MigrationSet): Promise<string[]> =>
  inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`schema-migrations:${set.schema}`]);
    // The one piece of bookkeeping umzug leaves to its storage: where the history is kept.
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(set.schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoteIdent(set.schema)}.schema_migrations (name text COLLATE "C" PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const umzug = new Umzug<pg.PoolClient>({
      migrations: set.migrations.map((migration) => ({ name: migration.name, up: ({ context }) => migration.up(context) })),
      context: client,
      storage: historyStorage(set),
      logger: undefined,
    });
    return (await umzug.up()).map((migration) => migration.name);
  });
