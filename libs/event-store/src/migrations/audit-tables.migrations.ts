import type pg from 'pg';
import { type Migration, runMigrations } from '#platform/database/migrations.js';
import { quoteIdent } from '#platform';

/*
 * The audit's side tables beside the log: chain links and seals (integrity/), person keys and fold
 * snapshots (personal-data/). Not derived from the log (a destroyed key is gone for good), so they
 * change only through these migrations, never by editing one: the next change is the next number.
 */

/** The DDL of the release before migrations, frozen: IF NOT EXISTS throughout, so it adopts a database that release wrote. */
const baseline = (schema: string): string => {
  const name = quoteIdent(schema);
  return `
    CREATE TABLE IF NOT EXISTS ${name}.audit_links (position bigint PRIMARY KEY, link text NOT NULL);
    CREATE TABLE IF NOT EXISTS ${name}.audit_seals (sequence bigint PRIMARY KEY, seal jsonb NOT NULL);
    CREATE TABLE IF NOT EXISTS ${name}.person_keys (key_id text PRIMARY KEY, workspace_id text NOT NULL, address_hash text NOT NULL,
      sealed_key text, created_at timestamptz NOT NULL DEFAULT now(), destroyed_at timestamptz);
    ALTER TABLE ${name}.person_keys ADD COLUMN IF NOT EXISTS retired_at timestamptz;
    CREATE UNIQUE INDEX IF NOT EXISTS person_keys_current ON ${name}.person_keys (workspace_id, address_hash) WHERE sealed_key IS NOT NULL AND retired_at IS NULL;
    DROP INDEX IF EXISTS ${name}.person_keys_live;
    CREATE INDEX IF NOT EXISTS person_keys_destroyed ON ${name}.person_keys (workspace_id, destroyed_at) WHERE sealed_key IS NULL;
    CREATE INDEX IF NOT EXISTS person_keys_retired ON ${name}.person_keys (workspace_id, retired_at) WHERE retired_at IS NOT NULL;
    CREATE OR REPLACE FUNCTION ${name}.person_keys_assert_current(key_ids text[]) RETURNS void LANGUAGE plpgsql AS $check$
    BEGIN
      IF (SELECT count(*) FROM ${name}.person_keys WHERE key_id = ANY(key_ids) AND sealed_key IS NOT NULL AND retired_at IS NULL) <> cardinality(key_ids) THEN
        RAISE EXCEPTION 'a person key used by this append was retired or destroyed meanwhile' USING ERRCODE = '23505', CONSTRAINT = 'person_keys_current';
      END IF;
    END $check$;
    CREATE TABLE IF NOT EXISTS ${name}.state_snapshots (stream_id text NOT NULL, fold text NOT NULL, revision integer NOT NULL,
      version integer NOT NULL, key_id text NOT NULL, body text NOT NULL, taken_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (stream_id, fold))`;
};

export const auditTableMigrations = (schema: string): Migration[] => [
  { name: '0001-baseline', up: async (client) => { await client.query(baseline(schema)); } },
];

/** Brings the audit's side tables of `schema` to this release (at start; safe when several processes start at once). */
export const migrateAuditTables = (pool: pg.Pool, schema: string): Promise<string[]> =>
  runMigrations(pool, { component: 'audit', schema, migrations: auditTableMigrations(schema) });
