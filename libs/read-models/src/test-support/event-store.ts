import type pg from 'pg';
import { pino } from 'pino';
import type { EventStore } from '#event-store';
import { createPostgresEventStore } from '#event-store';

/** The real PostgreSQL event store adapter, in the test file's own schema. */
export const createTestEventStore = (pool: pg.Pool, schema: string): Promise<EventStore> =>
  createPostgresEventStore({ pool, schema, pollIntervalMs: 10, listen: false, logger: pino({ level: 'silent' }) });
