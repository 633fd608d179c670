import type { Pool } from 'pg';
import type { WebhookEventName } from '#domain';
import { inTransaction } from '#platform';
import { qualified } from '../shared/sql.js';
import { ENDPOINT_DISABLED } from './delivery-log.js';
import { DELIVERIES_TABLE } from './delivery-log.sql.js';

/** One event of a recovery window, as its first delivery carried it. */
export interface RecoveredEvent {
  deliveryId: string;
  eventId: string;
  event: WebhookEventName;
  /** The envelope's exact bytes. */
  body: string;
  sandbox: boolean;
}

export interface NewRecovery {
  recoveryId: string;
  workspaceId: string;
  url: string;
  createdAt: string;
  /** The address is disabled: every row is logged `failed` with `endpoint_disabled`, none takes a turn. */
  disabled: boolean;
  /** In the log's order: row n gets turn n. */
  events: readonly RecoveredEvent[];
}

const INSERT_CHUNK = 500;

/**
 * A recovery's rows in the delivery log: each keeps its recovery's id, and its turn (`recovery_turn`,
 * 1, 2, … in the log's order) until its first attempt ends. Invariant: of a recovery's pending rows
 * holding a turn, only the lowest (the head) has a queue job. All state is in the rows, so the sweeper
 * can restart a sequence whose job Redis lost, and a crash repeats a step without skipping one.
 */
export class RecoveryLog {
  private readonly table: string;

  constructor(private readonly pool: Pool, schema: string) {
    this.table = qualified(schema, DELIVERIES_TABLE);
  }

  /** Every row of a recovery, in one transaction; answers the head's delivery id, or null when no row takes a turn. */
  async insert(recovery: NewRecovery): Promise<string | null> {
    const { events } = recovery;
    const status = recovery.disabled ? 'failed' : 'pending';
    const lastError = recovery.disabled ? ENDPOINT_DISABLED : null;
    await inTransaction(this.pool, async (client) => {
      for (let start = 0; start < events.length; start += INSERT_CHUNK) {
        const chunk = events.slice(start, start + INSERT_CHUNK);
        await client.query(
          `INSERT INTO ${this.table} (id, workspace_id, event_id, event, url, envelope, status, last_error, sandbox, created_at, updated_at, recovery_id, recovery_turn)
           SELECT recovered.id, $1, recovered.event_id, recovered.event, $2, recovered.body::json, $3, $4, recovered.sandbox, $5, $5, $6,
             CASE WHEN $3 = 'pending' THEN recovered.turn END
           FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::boolean[], $12::integer[]) AS recovered(id, event_id, event, body, sandbox, turn)`,
          [
            recovery.workspaceId, recovery.url, status, lastError, recovery.createdAt, recovery.recoveryId,
            chunk.map((event) => event.deliveryId), chunk.map((event) => event.eventId), chunk.map((event) => event.event),
            chunk.map((event) => event.body), chunk.map((event) => event.sandbox), chunk.map((_event, index) => start + index + 1),
          ],
        );
      }
    });
    return recovery.disabled ? null : events[0]?.deliveryId ?? null;
  }

  /** The delivery gives up its turn; answers the recovery's new head, or null. Idempotent, so safe to repeat after a crash. */
  async passTurn(deliveryId: string, recoveryId: string): Promise<string | null> {
    // A data-modifying WITH runs whether or not the query reads it; the SELECT sees the rows as before it, hence `id <> $1`.
    const result = await this.pool.query(
      `WITH passed AS (UPDATE ${this.table} SET recovery_turn = NULL WHERE id = $1 AND recovery_turn IS NOT NULL)
       SELECT id FROM ${this.table}
       WHERE recovery_id = $2 AND status = 'pending' AND recovery_turn IS NOT NULL AND id <> $1
       ORDER BY recovery_turn LIMIT 1`,
      [deliveryId, recoveryId],
    );
    const head = result.rows[0] as { id: string } | undefined;
    return head?.id ?? null;
  }
}
