import type { EventMetadata, RecordedEvent } from '../event-store.port.js';

/** A row of `events` as node-postgres returns it: int8 arrives as a string, timestamptz as a Date. */
export interface EventRow {
  position: string;
  id: string;
  stream_id: string;
  revision: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  recorded_at: Date;
  hash: string | null;
}

export const EVENT_COLUMNS = 'position, id, stream_id, revision, type, data, metadata, recorded_at, hash';

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    streamId: row.stream_id,
    revision: Number(row.revision),
    position: BigInt(row.position),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at.toISOString(),
    hash: row.hash ?? undefined,
  };
}

/** The columns of a data-only read (ReadAllOptions.dataOnly). */
export const DATA_ONLY_COLUMNS = 'position, stream_id, revision, type, data';

const BLANK_METADATA: EventMetadata = Object.freeze({ correlationId: '', causationId: null, actor: '', requestId: '', time: '' });

export function toDataOnlyEvent(row: Pick<EventRow, 'position' | 'stream_id' | 'revision' | 'type' | 'data'>): RecordedEvent {
  return {
    id: '', streamId: row.stream_id, revision: Number(row.revision), position: BigInt(row.position), type: row.type, data: row.data, metadata: BLANK_METADATA, recordedAt: '',
  };
}
