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
export const DATA_ONLY_COLUMNS = "position, id, stream_id, revision, type, data, metadata->>'time' AS time, (metadata->>'schemaVersion')::int AS schema_version";

/** The same, the data only where the type is one of the text[] in $3 (ReadAllOptions.dataOfTypes), NULL elsewhere. */
export const DATA_ONLY_COLUMNS_OF_TYPES = "position, CASE WHEN type = ANY($3::text[]) THEN id END AS id, stream_id, revision, type, CASE WHEN type = ANY($3::text[]) THEN data END AS data, CASE WHEN type = ANY($3::text[]) THEN metadata->>'time' END AS time, (metadata->>'schemaVersion')::int AS schema_version";

const BLANK_METADATA: EventMetadata = Object.freeze({ correlationId: '', causationId: null, actor: '', requestId: '', time: '' });
const NO_DATA: Record<string, unknown> = Object.freeze({});

/**
 * Blank metadata but for the schema version, which the data needs to be read (one frozen object per
 * version). Pure values: nothing to invalidate; bounded by the schema versions this code knows of (a handful).
 */
const VERSIONED_BLANKS = new Map<number, EventMetadata>();
const blankMetadata = (version: number | null | undefined): EventMetadata => {
  if (version === null || version === undefined) return BLANK_METADATA;
  let blank = VERSIONED_BLANKS.get(version);
  if (blank === undefined) VERSIONED_BLANKS.set(version, (blank = Object.freeze({ ...BLANK_METADATA, schemaVersion: version })));
  return blank;
};

type DataOnlyRow = Pick<EventRow, 'position' | 'stream_id' | 'revision' | 'type'> & {
  id?: string | null; data: EventRow['data'] | null; time?: string | null; schema_version?: number | null;
};

/** Metadata of a data-only read: blank but for the event's time and schema version (a plain literal: a spread costs per property). */
const dataOnlyMetadata = (time: string | null | undefined, version: number | null | undefined): EventMetadata => {
  if (time === null || time === undefined) return blankMetadata(version);
  return version === null || version === undefined
    ? { correlationId: '', causationId: null, actor: '', requestId: '', time }
    : { correlationId: '', causationId: null, actor: '', requestId: '', time, schemaVersion: version };
};

export function toDataOnlyEvent(row: DataOnlyRow): RecordedEvent {
  return {
    id: row.id ?? '', streamId: row.stream_id, revision: Number(row.revision), position: BigInt(row.position), type: row.type, data: row.data ?? NO_DATA,
    metadata: dataOnlyMetadata(row.time, row.schema_version), recordedAt: '',
  };
}
