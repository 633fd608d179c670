import type pg from 'pg';
import { quoteIdent } from '#platform';
import { runMigrations } from '#platform/database/migrations.js';

/** Names of everything the adapter touches in one PostgreSQL schema, quoted once. */
export interface PostgresTables {
  schema: string;
  events: string;
  /** The function that fails a transaction in which some of these event ids were not inserted (see postgres-group-append.ts). */
  appendedCheck: string;
  notifyChannel: string;
  appendLock: readonly [number, number];
}

// Two-key advisory locks: the first key is this library's own namespace, so its locks cannot collide
// with another library's single-key (bigint) locks; the second key separates schemas, so isolated
// stores (one per test file) do not serialize each other's appends.
const LOCK_NAMESPACE = 0x45535452;
const APPEND_PURPOSE = 2;

/** FNV-1a, folded into PostgreSQL's int4 range: advisory lock keys are two int4 values. */
function lockKey(schema: string, purpose: number): number {
  let hash = 0x811c9dc5 ^ purpose;
  for (const char of schema) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

export function postgresTables(schema: string): PostgresTables {
  const quoted = quoteIdent(schema);
  return {
    schema,
    events: `${quoted}.events`,
    appendedCheck: `${quoted}.events_assert_appended`,
    // Channel names are identifiers (max 63 bytes); the schema keeps processes on other schemas quiet.
    notifyChannel: quoteIdent(`es_${schema}`.slice(0, 63)),
    appendLock: [LOCK_NAMESPACE, lockKey(schema, APPEND_PURPOSE)],
  };
}

/*
 * No `streams` table: under the append lock (postgres-append.ts) a stream's revision read from `events`
 * cannot race, and the (stream_id, revision) index answers it in one probe: one write per event. The
 * unique constraint still backs the check: a writer that skipped the lock gets a unique violation,
 * mapped to WrongExpectedRevisionError.
 */
function ddl(tables: PostgresTables): string {
  return `
    CREATE SCHEMA IF NOT EXISTS ${quoteIdent(tables.schema)};
    CREATE TABLE IF NOT EXISTS ${tables.events} (
      position bigserial PRIMARY KEY,
      id uuid NOT NULL CONSTRAINT events_id_unique UNIQUE,
      stream_id text NOT NULL,
      revision bigint NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      hash text,
      CONSTRAINT events_stream_revision_unique UNIQUE (stream_id, revision)
    );
    DO $$ BEGIN
      -- Logs created before the hash chain (see integrity/): ALTER only when missing, as it locks the table.
      IF NOT EXISTS (SELECT 1 FROM information_schema.columns
        WHERE table_schema = '${tables.schema.replaceAll("'", "''")}' AND table_name = 'events' AND column_name = 'hash') THEN
        ALTER TABLE ${tables.events} ADD COLUMN hash text;
      END IF;
    END $$;
    CREATE OR REPLACE FUNCTION ${tables.appendedCheck}(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $fn$
    BEGIN
      IF (SELECT count(*) FROM ${tables.events} WHERE id = ANY(ids) AND xmin = pg_current_xact_id()::xid) <> cardinality(ids) THEN
        RAISE EXCEPTION 'an append whose expected revision failed runs no statements' USING ERRCODE = '${APPEND_REFUSED_STATE}';
      END IF;
    END $fn$;`;
}

export const STREAM_REVISION_CONSTRAINT = 'events_stream_revision_unique';
/** SQLSTATE of the appended check: a caller that brings statements had its expected revisions refused. */
export const APPEND_REFUSED_STATE = 'ES409';

/**
 * The log's schema, through the numbered migrations of the tables that are not derived (see
 * #platform/database/migrations.ts: one transaction under an advisory lock, so several processes may
 * start at once). Migration 1 is the DDL of the release before migrations, IF NOT EXISTS throughout:
 * it adopts a log that release wrote. A change of the log's tables is a new migration here, never an
 * edit of `ddl`.
 */
export async function migratePostgresSchema(pool: pg.Pool, tables: PostgresTables): Promise<void> {
  await runMigrations(pool, {
    component: 'log', schema: tables.schema,
    migrations: [{ name: '0001-baseline', up: async (client) => { await client.query(ddl(tables)); } }],
  });
}
