import type pg from 'pg';

/** Names of everything the adapter touches in one PostgreSQL schema, quoted once. */
export interface PostgresTables {
  schema: string;
  events: string;
  /** The function that fails a transaction in which some of these event ids were not inserted (see postgres-group-append.ts). */
  appendedCheck: string;
  notifyChannel: string;
  migrateLock: readonly [number, number];
  appendLock: readonly [number, number];
}

// Two-key advisory locks: the first key is this library's own namespace, so its locks cannot collide
// with another library's single-key (bigint) locks; the second key separates schemas, so isolated
// stores (one per test file) do not serialize each other's appends.
const LOCK_NAMESPACE = 0x45535452;
const MIGRATE_PURPOSE = 1;
const APPEND_PURPOSE = 2;

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

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
  const quoted = quoteIdentifier(schema);
  return {
    schema,
    events: `${quoted}.events`,
    appendedCheck: `${quoted}.events_assert_appended`,
    // Channel names are identifiers (max 63 bytes); the schema keeps processes on other schemas quiet.
    notifyChannel: quoteIdentifier(`es_${schema}`.slice(0, 63)),
    migrateLock: [LOCK_NAMESPACE, lockKey(schema, MIGRATE_PURPOSE)],
    appendLock: [LOCK_NAMESPACE, lockKey(schema, APPEND_PURPOSE)],
  };
}

/*
 * No separate `streams` table: appends are serialized by the append advisory lock (see
 * postgres-append.ts), so reading a stream's current revision from `events` inside that lock cannot
 * race, and the (stream_id, revision) unique index answers it with one backward index probe. One
 * table means one write per event and a single source of truth. The unique constraint still backs
 * the check: a writer that skipped the lock would get a unique violation, mapped to
 * WrongExpectedRevisionError.
 */
function ddl(tables: PostgresTables): string {
  return `
    CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(tables.schema)};
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
 * Idempotent, and safe when several processes start at once: CREATE ... IF NOT EXISTS alone still
 * races on the catalog's unique indexes, so the DDL runs under a transaction-scoped advisory lock
 * (released by COMMIT or ROLLBACK, even if this process dies, unlike a session lock on a pooled
 * connection).
 */
export async function migratePostgresSchema(pool: pg.Pool, tables: PostgresTables): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${tables.migrateLock[0]}, ${tables.migrateLock[1]})`);
    await client.query(ddl(tables));
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    await client.query('ROLLBACK').then(
      () => client.release(),
      (rollbackError: unknown) => client.release(rollbackError instanceof Error ? rollbackError : true),
    );
    throw error;
  }
}
