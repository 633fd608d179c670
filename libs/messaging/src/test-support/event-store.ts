import { createPostgresEventStore, type PostgresEventStore } from '#event-store';
import type { DomainEvent } from '#domain';
import type { TestDatabase } from './postgres.js';
import { newEvent } from './domain-events.js';

/** The PostgreSQL event store adapter in the test's own schema. */
export const openEventStore = (db: TestDatabase): Promise<PostgresEventStore> =>
  createPostgresEventStore({ pool: db.pool, schema: db.schema, listen: false });

/** Appends the events to their stream, each at its own domain time; returns the last position. */
export const appendEvents = async (store: PostgresEventStore, streamId: string, events: Array<[DomainEvent, string]>): Promise<bigint> => {
  const result = await store.appendToStream(streamId, events.map(([event, time]) => newEvent(event, time)), { expectedRevision: 'any' });
  return result.position;
};
