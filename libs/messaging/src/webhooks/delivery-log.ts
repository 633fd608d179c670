import type { Pool } from 'pg';
import type { WebhookEventName } from '#domain';
import { isoTime, qualified } from '../shared/sql.js';
import { type AttemptWrite, attemptWrites, deliveryReads } from './delivery-log.batches.js';
import { DELIVERIES_TABLE, DELIVERY_COLUMNS, addressHealthSql, pendingDeliveriesSql } from './delivery-log.sql.js';
import { type Row, deliveryOf } from './delivery-rows.js';
import type { WebhookEnvelope } from './envelopes.js';
import type { MicroBatcher } from './micro-batcher.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptRecord {
  /** Domain time the attempt started. */
  at: string;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

export interface WebhookDelivery {
  id: string;
  workspaceId: string;
  eventId: string;
  event: WebhookEventName;
  url: string;
  envelope: WebhookEnvelope;
  status: DeliveryStatus;
  attempts: number;
  attemptLog: AttemptRecord[];
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  sandbox: boolean;
}

/** A delivery with the exact bytes of its envelope, as they are signed and sent. */
export interface StoredDelivery extends WebhookDelivery {
  body: string;
}

export interface NewDelivery {
  id: string;
  workspaceId: string;
  eventId: string;
  event: WebhookEventName;
  url: string;
  /** The envelope as serialized once; retries and resends send these bytes. */
  body: string;
  sandbox: boolean;
  createdAt: string;
  /** `failed` with `endpoint_disabled` for an address that is disabled when the event is dispatched. */
  status?: DeliveryStatus;
  lastError?: string | null;
}

export interface AddressHealth {
  lastSuccessAt: string | null;
  /** First failed attempt of the current failing streak; null when the last attempt succeeded or none failed. */
  failingSince: string | null;
}

export interface PendingDelivery {
  id: string;
  attempts: number;
  updatedAt: string;
  /** A recovered delivery's recovery (its job carries it). */
  recoveryId?: string;
}

/** Where a row stands in the log's order: its creation time, then its insertion sequence (a decimal string). */
export interface DeliveryPlace {
  createdAt: string;
  seq: string;
}

export interface DeliveryPage {
  rows: WebhookDelivery[];
  /** The place of the page's last row when more rows follow; null at the end. */
  next: DeliveryPlace | null;
}

export const ENDPOINT_DISABLED = 'endpoint_disabled';

/** Strips the stored bytes: what the internal application lists. */
export const publicDelivery = ({ body: _body, ...delivery }: StoredDelivery): WebhookDelivery => delivery;

/**
 * The webhook delivery log in PostgreSQL. Every method is one statement on the pool, never a held
 * client, so it also runs on an embedded PGlite behind a single connection. The worker's reads and
 * attempt writes are coalesced across concurrent jobs (delivery-log.batches.ts).
 */
export class DeliveryLog {
  private readonly table: string;
  private readonly reads: MicroBatcher<string, StoredDelivery | null>;
  private readonly attempts: MicroBatcher<AttemptWrite, boolean>;

  constructor(private readonly pool: Pool, private readonly schema: string) {
    this.table = qualified(schema, DELIVERIES_TABLE);
    this.reads = deliveryReads(pool, schema);
    this.attempts = attemptWrites(pool, schema);
  }

  /** Erasure scrub: in the envelopes of these events' deliveries, every JSON string among `values` becomes `erased`. */
  async redact(workspaceId: string, eventIds: readonly string[], values: readonly string[], erased: string): Promise<void> {
    const kept = values.filter((value) => value !== '' && value !== erased);
    if (kept.length === 0 || eventIds.length === 0) return;
    const quoted = (value: string): string => JSON.stringify(value);
    let expression = 'envelope::text';
    kept.forEach((_value, index) => { expression = `replace(${expression}, $${index + 4}, $3)`; });
    await this.pool.query(
      `UPDATE ${this.table} SET envelope = (${expression})::json WHERE workspace_id = $1 AND event_id = ANY($2)`,
      [workspaceId, [...eventIds], quoted(erased), ...kept.map(quoted)],
    );
  }

  /** Insert-if-absent on the delivery id: a dispatcher that runs an event twice creates one row. */
  async insertIfAbsent(input: NewDelivery): Promise<{ created: boolean; delivery: StoredDelivery }> {
    const status = input.status ?? 'pending';
    const inserted = await this.pool.query(
      `INSERT INTO ${this.table} (id, workspace_id, event_id, event, url, envelope, status, last_error, sandbox, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::json, $7, $8, $9, $10, $10) ON CONFLICT (id) DO NOTHING RETURNING ${DELIVERY_COLUMNS}`,
      [input.id, input.workspaceId, input.eventId, input.event, input.url, input.body, status, input.lastError ?? null, input.sandbox, input.createdAt],
    );
    const row = inserted.rows[0] as Row | undefined;
    if (row) return { created: true, delivery: deliveryOf(row) };
    const existing = await this.get(input.id);
    if (!existing) throw new Error(`delivery ${input.id} vanished while it was being created`);
    return { created: false, delivery: existing };
  }

  get(id: string): Promise<StoredDelivery | null> {
    return this.reads.submit(id);
  }

  /** Appends an attempt to a pending delivery and sets its status; false when no longer pending. Applied in call order. */
  recordAttempt(id: string, attempt: AttemptRecord, status: DeliveryStatus): Promise<boolean> {
    return this.attempts.submit({ id, attempt, status });
  }

  /** Ends a pending delivery without an attempt; `lastError` is only set when nothing was ever sent. */
  async failWithoutAttempt(id: string, at: string, reason: string): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.table} SET status = 'failed', last_error = CASE WHEN attempts = 0 THEN $3 ELSE last_error END, updated_at = $2
       WHERE id = $1 AND status = 'pending'`,
      [id, at, reason],
    );
  }

  async addressHealth(workspaceId: string, url: string, enabledAt: string | null = null): Promise<AddressHealth> {
    const result = await this.pool.query(addressHealthSql(this.schema), [workspaceId, url, enabledAt]);
    const row = (result.rows[0] ?? {}) as Row;
    return {
      lastSuccessAt: row.last_success_at ? isoTime(row.last_success_at) : null,
      failingSince: row.failing_since ? isoTime(row.failing_since) : null,
    };
  }

  /** The first page of 1,000 (pageDeliveries). */
  async listDeliveries(workspaceId: string): Promise<WebhookDelivery[]> {
    return (await this.pageDeliveries(workspaceId, { limit: 1000 })).rows;
  }

  /**
   * One page of the log, newest first: the rows after `after` (the previous page's `next`), and the
   * place of the last row when more follow. A place is (createdAt, seq): creation times tie under a
   * frozen clock, the insertion order does not. `seq` is read as text under a name of its own: an
   * output named `seq` would be what ORDER BY sorts by, as text ("10" before "9").
   */
  async pageDeliveries(workspaceId: string, options: { limit: number; after?: DeliveryPlace }): Promise<DeliveryPage> {
    const after = options.after ?? null;
    const result = await this.pool.query(
      `SELECT ${DELIVERY_COLUMNS}, seq::text AS place_seq FROM ${this.table}
       WHERE workspace_id = $1 AND ($3::timestamptz IS NULL OR (created_at, seq) < ($3::timestamptz, $4::bigint))
       ORDER BY created_at DESC, seq DESC LIMIT $2`,
      [workspaceId, options.limit + 1, after?.createdAt ?? null, after?.seq ?? null],
    );
    const rows = (result.rows as Row[]).slice(0, options.limit);
    const last = rows.at(-1);
    const next = result.rows.length > options.limit && last ? { createdAt: isoTime(last.created_at), seq: String(last.place_seq) } : null;
    return { rows: rows.map((row) => publicDelivery(deliveryOf(row))), next };
  }

  /** Deliveries still to be sent, oldest first; of a recovery's rows waiting for their turn, only the head. */
  async listPending(limit: number): Promise<PendingDelivery[]> {
    const result = await this.pool.query(pendingDeliveriesSql(this.schema), [limit]);
    return (result.rows as Row[]).map((row) => ({
      id: String(row.id), attempts: Number(row.attempts), updatedAt: isoTime(row.updated_at),
      ...(row.recovery_id === null ? {} : { recoveryId: String(row.recovery_id) }),
    }));
  }

  /** Deletes deliveries created before `before` (domain time); returns how many went. */
  async purgeOlderThan(before: string | Date): Promise<number> {
    const cutoff = before instanceof Date ? before.toISOString() : before;
    const result = await this.pool.query(`DELETE FROM ${this.table} WHERE created_at < $1`, [cutoff]);
    return result.rowCount ?? 0;
  }
}
