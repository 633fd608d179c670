import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { newEvent } from './contract/contract-support.js';
import { WrongExpectedRevisionError } from './event-store.port.js';
import type { AppendResult, EventStore, NewEvent, ReadAllOptions, RecordedEvent, StreamAppend, SubscribeOptions, Subscription } from './event-store.port.js';
import { handleCommand, type Decider } from './handle-command.js';
import { createPostgresEventStore, type PostgresEventStore } from './postgres/postgres-event-store.js';

// A counter with a ceiling: enough domain to show folding, refusals and conflicts.
type CounterEvent = { type: 'Incremented'; data: { by: number } };
type CounterCommand = { type: 'Increment'; by: number } | { type: 'Noop' };
class CeilingReached extends Error {}
const CEILING = 10;

const counter: Decider<number, CounterCommand, CounterEvent> = {
  initialState: () => 0,
  evolve: (total, event) => total + event.data.by,
  decide: (command, total) => {
    if (command.type === 'Noop') return [];
    if (total + command.by > CEILING) throw new CeilingReached(`${total} + ${command.by} > ${CEILING}`);
    return [{ type: 'Incremented', data: { by: command.by } }];
  },
};
const toNewEvent = (event: CounterEvent): NewEvent => newEvent(event.type, event.data);

/** A real store where a rival append lands between the command's read and its append, `times` times. */
class ContendedStore implements EventStore {
  reads = 0;

  constructor(private readonly store: EventStore, private readonly times: number) {}

  async readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]> {
    const events = await this.store.readStream(streamId, options);
    this.reads += 1;
    if (this.reads <= this.times) {
      await this.store.appendToStream(streamId, [toNewEvent({ type: 'Incremented', data: { by: 1 } })], { expectedRevision: 'any' });
    }
    return events;
  }

  appendToStream(...args: Parameters<EventStore['appendToStream']>): Promise<AppendResult> {
    return this.store.appendToStream(...args);
  }
  appendToStreams(appends: StreamAppend[]): Promise<AppendResult> {
    return this.store.appendToStreams(appends);
  }
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.store.readAll(options);
  }
  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.store.subscribeToAll(options);
  }
  headPosition(): Promise<bigint | null> {
    return this.store.headPosition();
  }
  close(): Promise<void> {
    return this.store.close();
  }
}

describe('handleCommand', () => {
  const schema = `es_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', max: 4 });
  let store: PostgresEventStore;

  beforeAll(async () => {
    store = await createPostgresEventStore({ pool, schema, listen: false });
  });
  afterAll(async () => {
    await store.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('folds the stream, decides and appends with the revision it read', async () => {
    const streamId = `counter-${randomUUID()}`;
    await handleCommand(store, streamId, counter, { type: 'Increment', by: 3 }, { toNewEvent });
    const { events, result } = await handleCommand(store, streamId, counter, { type: 'Increment', by: 4 }, { toNewEvent });

    expect(events).toEqual([{ type: 'Incremented', data: { by: 4 } }]);
    expect(result?.nextRevision).toBe(1);
    await expect(handleCommand(store, streamId, counter, { type: 'Increment', by: 4 }, { toNewEvent })).rejects.toBeInstanceOf(CeilingReached);
  });

  it('appends nothing and returns a null result when the decision has no events', async () => {
    const streamId = `counter-${randomUUID()}`;
    expect(await handleCommand(store, streamId, counter, { type: 'Noop' }, { toNewEvent })).toEqual({ events: [], result: null });
    expect(await store.readStream(streamId)).toEqual([]);
  });

  it('retries on a conflicting append and decides again on the fresh state', async () => {
    const streamId = `counter-${randomUUID()}`;
    const contended = new ContendedStore(store, 2);

    const { result } = await handleCommand(contended, streamId, counter, { type: 'Increment', by: 5 }, { toNewEvent });

    expect(contended.reads).toBe(3);
    expect(result?.nextRevision).toBe(2);
    expect((await store.readStream(streamId)).map((event) => event.data)).toEqual([{ by: 1 }, { by: 1 }, { by: 5 }]);
  });

  it('gives up with WrongExpectedRevisionError after maxRetries', async () => {
    const streamId = `counter-${randomUUID()}`;
    const contended = new ContendedStore(store, 10);

    const attempt = handleCommand(contended, streamId, counter, { type: 'Increment', by: 1 }, { toNewEvent, maxRetries: 2 });

    await expect(attempt).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(contended.reads).toBe(3);
  });
});
