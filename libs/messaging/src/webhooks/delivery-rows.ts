import type { WebhookEventName } from '#domain';
import { isoTime } from '../shared/sql.js';
import type { AttemptRecord, DeliveryStatus, StoredDelivery } from './delivery-log.js';
import type { WebhookEnvelope } from './envelopes.js';

export type Row = Record<string, unknown>;

const attemptOf = (value: unknown): AttemptRecord => {
  const raw = (value ?? {}) as Record<string, unknown>;
  return {
    at: String(raw.at),
    responseStatus: typeof raw.responseStatus === 'number' ? raw.responseStatus : null,
    durationMs: Number(raw.durationMs ?? 0),
    error: typeof raw.error === 'string' ? raw.error : null,
  };
};

export const deliveryOf = (row: Row): StoredDelivery => {
  const body = String(row.body);
  return {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    eventId: String(row.event_id),
    event: String(row.event) as WebhookEventName,
    url: String(row.url),
    envelope: JSON.parse(body) as WebhookEnvelope,
    status: String(row.status) as DeliveryStatus,
    attempts: Number(row.attempts),
    attemptLog: Array.isArray(row.attempt_log) ? row.attempt_log.map(attemptOf) : [],
    lastResponseStatus: row.last_response_status === null ? null : Number(row.last_response_status),
    lastError: row.last_error === null ? null : String(row.last_error),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    sandbox: row.sandbox === true,
    body,
  };
};
