import type pg from 'pg';
import { Umzug, type UmzugStorage } from 'umzug';
import { inTransaction, quoteIdent } from './in-transaction.js';

/**
 * One numbered, forward-only change of a table not derived from the log (the log, seals and links, person keys,
 * snapshots, delivery log, outbox, checkpoints, leases); read models are rebuilt instead (docs/operations.md,
 * "Upgrades"). Never changed once released. `up` runs on the migrating transaction's client only.
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
 * Applies the pending migrations of `set` in order and returns their names. One transaction under a transaction-scoped
 * advisory lock on the history's schema: a second process started at once waits, then finds nothing pending; one that
 * dies mid-run leaves nothing half-applied (DDL is transactional) and its lock goes with its connection. On the
 * embedded store the lock never waits.
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
