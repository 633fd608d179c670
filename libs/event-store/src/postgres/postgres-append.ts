import type pg from 'pg';
import { WrongExpectedRevisionError } from '../event-store.port.js';
import type { AppendResult, ExpectedRevision, StreamAppend } from '../event-store.port.js';
import { STREAM_REVISION_CONSTRAINT } from './postgres-schema.js';
import type { PostgresTables } from './postgres-schema.js';

/*
 * Gap-free global order. `position` comes from a sequence, not transactional: 11 can commit while 10 is
 * in flight, and a reader past 11 would never see 10. So every append takes a transaction-scoped advisory
 * lock before it allocates positions, held until COMMIT: once a position is visible, every lower one is
 * visible or aborted (a harmless gap). The lock also makes the expected revision check race-free.
 * Trade-off: appends to one schema commit one at a time (bench/event-store.bench.ts), readers are never
 * blocked (readers stopping below pg_snapshot_xmin would scale better, but are harder to get right).
 * Where every transaction goes through one connection (the embedded store), none overlap: no lock.
 */

interface AppendedRow {
  position: string;
  revision: string;
}

function appendSql(tables: PostgresTables): string {
  // One statement checks the expected revision (nothing inserted when it fails) and inserts in revision order.
  return `
    WITH current AS (
      SELECT max(revision) AS revision FROM ${tables.events} WHERE stream_id = $1
    ), checked AS (
      SELECT coalesce(revision, -1) AS revision FROM current
      WHERE $2::text = 'any' OR ($2::text = 'no_stream' AND revision IS NULL) OR revision = $3::bigint
    )
    INSERT INTO ${tables.events} (id, stream_id, revision, type, data, metadata, recorded_at, hash)
    SELECT (e.event->>'id')::uuid, $1, checked.revision + e.ord, e.event->>'type', e.event->'data', e.event->'metadata',
      coalesce((e.event->'integrity'->>'recordedAt')::timestamptz, now()), e.event->'integrity'->>'hash'
    FROM checked CROSS JOIN jsonb_array_elements($4::jsonb) WITH ORDINALITY AS e(event, ord)
    ORDER BY e.ord
    RETURNING position, revision`;
}

function matches(expected: ExpectedRevision, actual: number | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === null;
  return actual === expected;
}

async function currentRevision(db: pg.Pool | pg.PoolClient, tables: PostgresTables, streamId: string): Promise<number | null> {
  const result = await db.query<{ revision: string | null }>(
    `SELECT max(revision) AS revision FROM ${tables.events} WHERE stream_id = $1`,
    [streamId],
  );
  const revision = result.rows[0]?.revision ?? null;
  return revision === null ? null : Number(revision);
}

function wrongRevision(append: StreamAppend, actual: number | null): WrongExpectedRevisionError {
  return new WrongExpectedRevisionError(append.streamId, append.expectedRevision, actual ?? 'no_stream');
}

/** The first stream whose expected revision does not hold now, with its actual revision; null when all hold. */
export async function refusal(
  db: pg.Pool | pg.PoolClient,
  tables: PostgresTables,
  appends: readonly StreamAppend[],
): Promise<WrongExpectedRevisionError | null> {
  for (const append of appends) {
    const actual = await currentRevision(db, tables, append.streamId);
    if (!matches(append.expectedRevision, actual)) return wrongRevision(append, actual);
  }
  return null;
}

async function appendOne(
  client: pg.PoolClient,
  tables: PostgresTables,
  append: StreamAppend,
): Promise<{ revision: number | null; position: bigint | null }> {
  if (append.events.length === 0) {
    const actual = await currentRevision(client, tables, append.streamId);
    if (!matches(append.expectedRevision, actual)) throw wrongRevision(append, actual);
    return { revision: actual, position: null };
  }
  const expected = append.expectedRevision;
  const [kind, revision] = typeof expected === 'number' ? ['revision', String(expected)] : [expected, null];
  const events = append.events.map(({ id, type, data, metadata, integrity }) => ({ id, type, data, metadata, integrity }));
  const result = await client.query<AppendedRow>(appendSql(tables), [append.streamId, kind, revision, JSON.stringify(events)]);
  const last = result.rows.at(-1);
  if (last === undefined) throw wrongRevision(append, await currentRevision(client, tables, append.streamId));
  return { revision: Number(last.revision), position: BigInt(last.position) };
}

export function isStreamRevisionViolation(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null &&
    'code' in error && error.code === '23505' &&
    'constraint' in error && error.constraint === STREAM_REVISION_CONSTRAINT
  );
}

async function headPosition(client: pg.PoolClient, tables: PostgresTables): Promise<bigint> {
  const result = await client.query<{ position: string | null }>(`SELECT max(position) AS position FROM ${tables.events}`);
  return BigInt(result.rows[0]?.position ?? 0);
}

/** Returns the error to throw: a racing insert's unique violation becomes a revision conflict. */
async function rollBack(client: pg.PoolClient, tables: PostgresTables, error: unknown, failed: StreamAppend | undefined): Promise<unknown> {
  try {
    await client.query('ROLLBACK');
    const mapped = isStreamRevisionViolation(error) && failed !== undefined
      ? wrongRevision(failed, await currentRevision(client, tables, failed.streamId))
      : error;
    client.release();
    return mapped;
  } catch (rollbackError) {
    // A failed ROLLBACK means the connection is unusable: destroy it rather than return it to the pool.
    client.release(rollbackError instanceof Error ? rollbackError : true);
    return error;
  }
}

/**
 * Appends to every stream in one transaction: all or nothing. Takes a client of its own and never
 * awaits another pool query while holding it, so it works on a pool of one connection.
 */
export async function appendInTransaction(
  pool: pg.Pool,
  tables: PostgresTables,
  appends: StreamAppend[],
  notify: boolean,
  statements: readonly string[] = [],
  /** False in a single-process deployment: every transaction goes through one connection (see GroupAppender). */
  lock = true,
): Promise<AppendResult> {
  const client = await pool.connect();
  let current: StreamAppend | undefined;
  try {
    await client.query(lock ? `BEGIN; SELECT pg_advisory_xact_lock(${tables.appendLock[0]}, ${tables.appendLock[1]})` : 'BEGIN');
    let last: { revision: number | null; position: bigint | null } = { revision: null, position: null };
    let lastPosition: bigint | null = null;
    for (const append of appends) {
      current = append;
      last = await appendOne(client, tables, append);
      lastPosition = last.position ?? lastPosition;
    }
    const position = lastPosition ?? (await headPosition(client, tables));
    current = undefined;
    if (statements.length > 0) await client.query(statements.join('; '));
    await client.query(notify ? `NOTIFY ${tables.notifyChannel}; COMMIT` : 'COMMIT');
    client.release();
    return { nextRevision: last.revision ?? -1, position };
  } catch (error) {
    throw await rollBack(client, tables, error, current);
  }
}
