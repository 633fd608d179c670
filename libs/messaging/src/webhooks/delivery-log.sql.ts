import { qualified } from '../shared/sql.js';

export const DELIVERIES_TABLE = 'webhook_deliveries';

export const DELIVERY_COLUMNS = `id, workspace_id, event_id, event, url, envelope::text AS body, status, attempts, attempt_log,
  last_response_status, last_error, sandbox, created_at, updated_at`;

/**
 * The health of one address from the log itself: the last successful attempt, and the first failed
 * attempt after it (and after the address was last enabled): the start of the current failing streak.
 */
export const addressHealthSql = (schema: string): string => `
  WITH tries AS (
    SELECT (attempt->>'at')::timestamptz AS at, attempt->>'error' AS error
    FROM ${qualified(schema, DELIVERIES_TABLE)} CROSS JOIN LATERAL jsonb_array_elements(attempt_log) AS attempt
    WHERE workspace_id = $1 AND url = $2
  ), last_success AS (SELECT max(at) AS at FROM tries WHERE error IS NULL)
  SELECT (SELECT at FROM last_success) AS last_success_at,
    (SELECT min(at) FROM tries WHERE error IS NOT NULL
      AND at > coalesce((SELECT at FROM last_success), '-infinity'::timestamptz)
      AND at >= coalesce($3::timestamptz, '-infinity'::timestamptz)) AS failing_since`;

/** Reads many deliveries in one statement: the worker's reads of concurrent jobs, coalesced. */
export const readDeliveriesSql = (schema: string): string =>
  `SELECT ${DELIVERY_COLUMNS} FROM ${qualified(schema, DELIVERIES_TABLE)} WHERE id = ANY($1::text[])`;

/**
 * Appends one attempt to each of many pending deliveries in one statement (one source row per
 * delivery: the batcher never puts two attempts of one delivery in the same statement).
 */
export const recordAttemptsSql = (schema: string): string => `
  UPDATE ${qualified(schema, DELIVERIES_TABLE)} AS delivery
  SET attempts = delivery.attempts + 1, attempt_log = delivery.attempt_log || jsonb_build_array(attempt.record),
    last_response_status = attempt.response_status, last_error = attempt.error, status = attempt.status, updated_at = attempt.at
  FROM unnest($1::text[], $2::jsonb[], $3::integer[], $4::text[], $5::text[], $6::timestamptz[])
    AS attempt(id, record, response_status, error, status, at)
  WHERE delivery.id = attempt.id AND delivery.status = 'pending'
  RETURNING delivery.id`;

/**
 * Pending deliveries, oldest first, but for recovered rows waiting for their turn: a row holding a
 * turn is listed only when no pending row of its recovery holds an earlier one (it is the head).
 */
export const pendingDeliveriesSql = (schema: string): string => `
  SELECT id, attempts, updated_at, recovery_id FROM ${qualified(schema, DELIVERIES_TABLE)} AS delivery
  WHERE status = 'pending' AND NOT (delivery.recovery_turn IS NOT NULL AND EXISTS (
    SELECT 1 FROM ${qualified(schema, DELIVERIES_TABLE)} AS earlier
    WHERE earlier.recovery_id = delivery.recovery_id AND earlier.status = 'pending' AND earlier.recovery_turn < delivery.recovery_turn))
  ORDER BY updated_at, seq LIMIT $1`;
