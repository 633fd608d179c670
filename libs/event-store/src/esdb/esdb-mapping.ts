import { ANY, NO_STREAM, START, jsonEvent, type AppendExpectedRevision, type EventData, type ReadPosition } from '@eventstore/db-client';
import type { EventMetadata, ExpectedRevision, NewEvent, RecordedEvent } from '../event-store.port.js';

/** The client's recorded event, narrowed to what the mapping reads (stream reads may lack a position). */
export interface EsdbRecordedEvent {
  id: string;
  streamId: string;
  revision: bigint;
  type: string;
  isJson: boolean;
  data: unknown;
  metadata: unknown;
  created: Date;
  position?: { commit: bigint; prepare: bigint };
}

/** `$`-prefixed types and streams belong to EventStoreDB itself ($metadata, $statistics, projections). */
export function isSystemEvent(event: { type: string; streamId: string }): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** The client accepts esdb:// only; KurrentDB (the renamed server) documents kurrentdb://. */
export function esdbConnectionString(url: string): string {
  return url.replace(/^kurrentdb(\+discover)?:\/\//, (_match, discover: string | undefined) => `esdb${discover ?? ''}://`);
}

export function toAppendExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  return BigInt(expected);
}

/** Positions are commit positions; `after` is exclusive, so readers also skip commit <= after. */
export function fromPosition(after: bigint | null): ReadPosition {
  return after === null ? START : { commit: after, prepare: after };
}

export function toEventData(event: NewEvent): EventData {
  return jsonEvent({
    id: event.id,
    type: event.type,
    data: { ...event.data },
    // EventStoreDB sets its own `created` time and has no column of ours: the recorded time the hash
    // covers and the hash itself travel in the metadata, and toRecordedEvent takes them out again.
    metadata: event.integrity === undefined ? { ...event.metadata } : { ...event.metadata, [INTEGRITY_KEY]: event.integrity },
  });
}

const INTEGRITY_KEY = '$integrity';

function integrityOf(metadata: Record<string, unknown>): { recordedAt: string; hash: string } | null {
  const stamp = metadata[INTEGRITY_KEY];
  return isObject(stamp) && typeof stamp.recordedAt === 'string' && typeof stamp.hash === 'string' ? { recordedAt: stamp.recordedAt, hash: stamp.hash } : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function isEventMetadata(value: unknown): value is EventMetadata {
  return isObject(value) && typeof value.correlationId === 'string' && typeof value.actor === 'string' && typeof value.time === 'string';
}

/**
 * Null for events this port cannot represent (binary, or written without our metadata by another
 * tool): the store only promises to return what it was given.
 */
export function toRecordedEvent(event: EsdbRecordedEvent): RecordedEvent | null {
  if (!event.isJson || !isObject(event.data) || !isEventMetadata(event.metadata)) return null;
  const integrity = integrityOf(event.metadata as EventMetadata & Record<string, unknown>);
  const { [INTEGRITY_KEY]: _stamp, ...metadata } = event.metadata as EventMetadata & Record<string, unknown>;
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    // Stream reads come from the index, which may not carry the commit position: -1n marks it unknown.
    position: event.position?.commit ?? -1n,
    type: event.type,
    data: event.data,
    metadata: metadata as EventMetadata,
    recordedAt: integrity?.recordedAt ?? event.created.toISOString(),
    hash: integrity?.hash,
  };
}
