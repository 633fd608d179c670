import { pino } from 'pino';
import type { DomainEvent } from '#domain';
import type { EventStore, StreamAppend } from '#event-store';
import { createPostgresDocumentStore } from '../document-store/postgres-document.store.js';
import { ProjectionRunner } from '../projection-runner/projection-runner.js';
import type { ProjectionRunnerOptions } from '../projection-runner/projection-runner.options.js';
import type { DocumentStore } from '../shared/document-store.port.js';
import type { AnyProjection } from '../shared/projection.js';
import { createTestEventStore } from './event-store.js';
import { openTestDatabase, type TestDatabase } from './postgres.js';
import { streamOf, toNewEvent } from './recorded.js';

export const silentLogger = pino({ level: 'silent' });

export interface Harness {
  database: TestDatabase;
  eventStore: EventStore;
  documentStore: DocumentStore;
  /** Appends in order (consecutive events of one stream together) and returns the last position. */
  append(events: readonly DomainEvent[]): Promise<bigint>;
  startRunner(options?: Partial<ProjectionRunnerOptions>): Promise<ProjectionRunner>;
  /** Starts a runner, waits until it has every appended event, stops it. */
  project(options?: Partial<ProjectionRunnerOptions>): Promise<void>;
  /** Every document of a collection, by id. */
  all(collection: string): Promise<object[]>;
  close(): Promise<void>;
}

/** A real PostgreSQL schema holding both the event store and the read models of one test file. */
export const createHarness = async (prefix: string, projections: readonly AnyProjection[]): Promise<Harness> => {
  const database = await openTestDatabase(prefix);
  const eventStore = await createTestEventStore(database.pool, database.schema);
  const documentStore = createPostgresDocumentStore({ pool: database.pool, schema: database.schema, deployment: 'multi-process' });
  await documentStore.prepare(projections);
  const runners: ProjectionRunner[] = [];

  const startRunner = async (options?: Partial<ProjectionRunnerOptions>): Promise<ProjectionRunner> => {
    const runner = new ProjectionRunner({ eventStore, documentStore, projections, logger: silentLogger, retryDelayMs: 50, ...options });
    runners.push(runner);
    await runner.start();
    return runner;
  };

  return {
    database,
    eventStore,
    documentStore,
    async append(events) {
      let position = 0n;
      for (let i = 0; i < events.length; i += 200) {
        const appends: StreamAppend[] = [];
        for (const event of events.slice(i, i + 200)) {
          const streamId = streamOf(event);
          const last = appends.at(-1);
          if (last?.streamId === streamId) last.events.push(toNewEvent(event));
          else appends.push({ streamId, expectedRevision: 'any', events: [toNewEvent(event)] });
        }
        position = (await eventStore.appendToStreams(appends)).position;
      }
      return position;
    },
    startRunner,
    async project(options) {
      const head = await eventStore.headPosition();
      const runner = await startRunner(options);
      if (head !== null && !(await runner.waitForPosition(head, 10_000))) throw new Error('runner did not catch up');
      await runner.stop();
    },
    all: (collection) => documentStore.find<object>(collection, { where: [], orderBy: [{ field: 'id', direction: 'asc' }], limit: 100_000 }),
    async close() {
      await Promise.all(runners.map((runner) => runner.stop()));
      await eventStore.close();
      await documentStore.close();
      await database.drop();
    },
  };
};
