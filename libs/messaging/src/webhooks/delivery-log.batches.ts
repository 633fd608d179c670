import type { Pool } from 'pg';
import { statementName } from '#event-store';
import type { AttemptRecord, DeliveryStatus, StoredDelivery } from './delivery-log.js';
import { readDeliveriesSql, recordAttemptsSql } from './delivery-log.sql.js';
import { type Row, deliveryOf } from './delivery-rows.js';
import { MicroBatcher } from './micro-batcher.js';

export interface AttemptWrite {
  id: string;
  attempt: AttemptRecord;
  status: DeliveryStatus;
}

/** An error the server answered for one statement (not FATAL): the statement did nothing and the connection is fine. */
const isRefusedStatement = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'severity' in error && 'code' in error && (error as { severity: unknown }).severity === 'ERROR';

/** Reads of delivery rows by id, one prepared statement per batch; null for an unknown id. */
export const deliveryReads = (pool: Pool, schema: string): MicroBatcher<string, StoredDelivery | null> => {
  const text = readDeliveriesSql(schema);
  const name = statementName('whd', text);
  return new MicroBatcher({
    run: async (ids) => {
      const result = await pool.query({ name, text, values: [ids] });
      const byId = new Map((result.rows as Row[]).map((row) => [String(row.id), row]));
      return ids.map((id) => {
        const row = byId.get(id);
        return row ? deliveryOf(row) : null;
      });
    },
    retryAlone: isRefusedStatement,
  });
};

/** Attempts appended to pending rows, one prepared statement per batch; false where the row was no longer pending. */
export const attemptWrites = (pool: Pool, schema: string): MicroBatcher<AttemptWrite, boolean> => {
  const text = recordAttemptsSql(schema);
  const name = statementName('whd', text);
  return new MicroBatcher({
    run: async (writes) => {
      const result = await pool.query({
        name,
        text,
        values: [
          writes.map(({ id }) => id),
          writes.map(({ attempt }) => JSON.stringify(attempt)),
          writes.map(({ attempt }) => attempt.responseStatus),
          writes.map(({ attempt }) => attempt.error),
          writes.map(({ status }) => status),
          writes.map(({ attempt }) => attempt.at),
        ],
      });
      const recorded = new Set((result.rows as Row[]).map((row) => String(row.id)));
      return writes.map(({ id }) => recorded.has(id));
    },
    keyOf: ({ id }) => id,
    retryAlone: isRefusedStatement,
  });
};
