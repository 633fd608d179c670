import { describe, expect, it } from '@jest/globals';
import { WrongExpectedRevisionError } from '../event-store.port.js';
import type { EventStore, ExpectedRevision, RecordedEvent } from '../event-store.port.js';
import { newEvent, newEvents, readAllWithPrefix, streamPrefix, type ContractContext } from './contract-support.js';

async function expectConflict(
  attempt: Promise<unknown>,
  expected: { streamId: string; expected: ExpectedRevision; actual: number | 'no_stream' },
): Promise<void> {
  const error = await attempt.then(() => null, (failure: unknown) => failure);
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  expect(error).toMatchObject(expected);
}

export function appendContract(context: ContractContext): void {
  describe('append and read a stream', () => {
    it('returns the events in revision order with everything that was appended', async () => {
      const { store } = context.subject();
      const streamId = `${streamPrefix()}-order`;
      const events = [newEvent('Opened', { name: 'a' }), newEvent('Renamed', { name: 'b', nested: { list: [1, 2] } })];

      const result = await store.appendToStream(streamId, events, { expectedRevision: 'no_stream' });
      const read = await store.readStream(streamId);

      expect(result.nextRevision).toBe(1);
      expect(read.map((event) => [event.id, event.streamId, event.revision, event.type, event.data, event.metadata])).toEqual(
        events.map((event, revision) => [event.id, streamId, revision, event.type, event.data, event.metadata]),
      );
      expect(read[1]?.position).toBe(result.position);
      expect(typeof result.position).toBe('bigint');
      expect((read[0]?.position ?? 0n) < result.position).toBe(true);
      expect(new Date(read[0]?.recordedAt ?? '').toISOString()).toBe(read[0]?.recordedAt);
    });

    it('reads from a revision, and a missing stream as empty', async () => {
      const { store } = context.subject();
      const streamId = `${streamPrefix()}-from`;
      await store.appendToStream(streamId, newEvents(3), { expectedRevision: 'no_stream' });

      expect((await store.readStream(streamId, { fromRevision: 1 })).map((event) => event.revision)).toEqual([1, 2]);
      expect(await store.readStream(`${streamPrefix()}-missing`)).toEqual([]);
    });

    it('reads several streams at once, each from its own revision, where the adapter can (readStreams)', async () => {
      const { store } = context.subject();
      if (store.readStreams === undefined) return;
      const [first, second, missing] = ['many-a', 'many-b', 'many-missing'].map((name) => `${streamPrefix()}-${name}`) as [string, string, string];
      await store.appendToStream(first, newEvents(3), { expectedRevision: 'no_stream' });
      await store.appendToStream(second, newEvents(2), { expectedRevision: 'no_stream' });

      const read = await store.readStreams([first, second, missing], { fromRevisions: new Map([[first, 2]]) });
      expect([...read.keys()].sort()).toEqual([first, second, missing].sort());
      expect(read.get(first)?.map((event) => event.revision)).toEqual([2]);
      expect(read.get(second)?.map((event) => event.revision)).toEqual([0, 1]);
      expect(read.get(missing)).toEqual([]);
      expect((await store.readStreams([first, second])).get(first)).toEqual(await store.readStream(first));
    });
  });

  describe('expected revision', () => {
    it('no_stream succeeds only on a missing stream', async () => {
      const { store } = context.subject();
      const streamId = `${streamPrefix()}-no-stream`;
      await store.appendToStream(streamId, newEvents(2), { expectedRevision: 'no_stream' });

      await expectConflict(store.appendToStream(streamId, newEvents(1), { expectedRevision: 'no_stream' }), {
        streamId,
        expected: 'no_stream',
        actual: 1,
      });
    });

    it('a number must equal the last revision', async () => {
      const { store } = context.subject();
      const streamId = `${streamPrefix()}-number`;
      await store.appendToStream(streamId, newEvents(2), { expectedRevision: 'no_stream' });

      await expectConflict(store.appendToStream(streamId, newEvents(1), { expectedRevision: 0 }), { streamId, expected: 0, actual: 1 });
      await expectConflict(store.appendToStream(streamId, newEvents(1), { expectedRevision: 2 }), { streamId, expected: 2, actual: 1 });
      const missing = `${streamPrefix()}-number-missing`;
      await expectConflict(store.appendToStream(missing, newEvents(1), { expectedRevision: 0 }), { streamId: missing, expected: 0, actual: 'no_stream' });

      const result = await store.appendToStream(streamId, newEvents(2), { expectedRevision: 1 });
      expect(result.nextRevision).toBe(3);
      expect((await store.readStream(streamId)).map((event) => event.revision)).toEqual([0, 1, 2, 3]);
    });

    it('any appends to a missing or an existing stream', async () => {
      const { store } = context.subject();
      const streamId = `${streamPrefix()}-any`;

      expect((await store.appendToStream(streamId, newEvents(1), { expectedRevision: 'any' })).nextRevision).toBe(0);
      expect((await store.appendToStream(streamId, newEvents(2), { expectedRevision: 'any' })).nextRevision).toBe(2);
    });

    it('of concurrent appends with the same expected revision exactly one wins', async () => {
      const { store } = context.subject();
      const streamId = `${streamPrefix()}-race`;
      await store.appendToStream(streamId, newEvents(1), { expectedRevision: 'no_stream' });

      const attempts = await Promise.allSettled(
        Array.from({ length: 6 }, () => store.appendToStream(streamId, newEvents(2), { expectedRevision: 0 })),
      );
      const fresh = `${streamPrefix()}-race-new`;
      const creations = await Promise.allSettled(
        Array.from({ length: 6 }, () => store.appendToStream(fresh, newEvents(1), { expectedRevision: 'no_stream' })),
      );

      for (const outcomes of [attempts, creations]) {
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(WrongExpectedRevisionError);
        }
      }
      expect(await store.readStream(streamId)).toHaveLength(3);
      expect(await store.readStream(fresh)).toHaveLength(1);
    });
  });

  describe('append to several streams', () => {
    it('appends to every stream and reports the last event', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      const result = await store.appendToStreams([
        { streamId: `${prefix}-a`, expectedRevision: 'no_stream', events: newEvents(2) },
        { streamId: `${prefix}-b`, expectedRevision: 'no_stream', events: newEvents(1) },
      ]);

      const [a, b] = [await store.readStream(`${prefix}-a`), await store.readStream(`${prefix}-b`)];
      expect([a.length, b.length]).toEqual([2, 1]);
      expect(result).toEqual({ nextRevision: 0, position: b[0]?.position });
    });

    it('appends nothing when one stream conflicts', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      await store.appendToStream(`${prefix}-taken`, newEvents(1), { expectedRevision: 'no_stream' });

      await expectConflict(
        store.appendToStreams([
          { streamId: `${prefix}-free`, expectedRevision: 'no_stream', events: newEvents(1) },
          { streamId: `${prefix}-taken`, expectedRevision: 'no_stream', events: newEvents(1) },
        ]),
        { streamId: `${prefix}-taken`, expected: 'no_stream', actual: 0 },
      );

      expect(await store.readStream(`${prefix}-taken`)).toHaveLength(1);
      // EventStoreDB has no multi-stream transaction: its adapter appends stream by stream (see
      // esdb-event-store.ts), so the stream before the conflicting one may have been written.
      if (context.capabilities.atomicMultiStreamAppend) expect(await store.readStream(`${prefix}-free`)).toEqual([]);
    });
  });

  describe('statements run in the append (where the store runs them)', () => {
    // A marker table stands for a statement's effect: creating it again succeeds only if the
    // first creation never committed. Each table is dropped at the end.
    const marker = (): string => `contract_marker_${streamPrefix()}`;
    const create = (table: string): string => `CREATE TABLE ${table} (id int)`;
    const committed = async (store: EventStore, table: string): Promise<boolean> => {
      const probe = await store.appendToStreams([{ streamId: `${streamPrefix()}-probe`, expectedRevision: 'no_stream', events: newEvents(1) }], { statements: [create(table)] })
        .then(() => false, () => true);
      await store.appendToStreams([{ streamId: `${streamPrefix()}-drop`, expectedRevision: 'no_stream', events: newEvents(1) }], { statements: [`DROP TABLE IF EXISTS ${table}`] });
      return probe;
    };

    it('commits a caller\'s statements with its events, and never those of a caller whose expected revision failed, alone or grouped with others', async () => {
      const { store } = context.subject();
      if (store.runsStatements !== true) return;
      const prefix = streamPrefix();
      await store.appendToStream(`${prefix}-taken`, newEvents(1), { expectedRevision: 'no_stream' });
      const [alone, refused, accepted] = [marker(), marker(), marker()];

      await expectConflict(
        store.appendToStreams([{ streamId: `${prefix}-taken`, expectedRevision: 'no_stream', events: newEvents(1) }], { statements: [create(alone)] }),
        { streamId: `${prefix}-taken`, expected: 'no_stream', actual: 0 },
      );
      // The first append goes at once; the two after it wait and may share the next transaction.
      const outcomes = await Promise.allSettled([
        store.appendToStream(`${prefix}-first`, newEvents(1), { expectedRevision: 'no_stream' }),
        store.appendToStreams([{ streamId: `${prefix}-taken`, expectedRevision: 5, events: newEvents(1) }], { statements: [create(refused)] }),
        store.appendToStreams([{ streamId: `${prefix}-free`, expectedRevision: 'no_stream', events: newEvents(1) }], { statements: [create(accepted)] }),
      ]);

      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(outcomes[1]?.status === 'rejected' ? outcomes[1].reason : null).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(`${prefix}-taken`)).toHaveLength(1);
      expect(await store.readStream(`${prefix}-free`)).toHaveLength(1);
      expect(await committed(store, alone)).toBe(false);
      expect(await committed(store, refused)).toBe(false);
      expect(await committed(store, accepted)).toBe(true);
    });
  });

  describe('read all', () => {
    it('returns events of all streams in append order, strictly after a position, at most maxCount', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      const head = await store.headPosition();
      const streams = [`${prefix}-x`, `${prefix}-y`, `${prefix}-x`, `${prefix}-z`, `${prefix}-y`];
      const appended = [];
      for (const streamId of streams) {
        const event = newEvent('Visited', { streamId });
        const result = await store.appendToStream(streamId, [event], { expectedRevision: 'any' });
        appended.push({ id: event.id, position: result.position });
      }

      const all = await readAllWithPrefix(store, head, prefix);
      expect(all.map((event) => event.id)).toEqual(appended.map((event) => event.id));
      expect(all.map((event) => event.position)).toEqual(appended.map((event) => event.position));
      expect(await store.headPosition()).toBe(appended.at(-1)?.position);

      const second = appended[1]?.position ?? null;
      expect((await readAllWithPrefix(store, second, prefix)).map((event) => event.id)).toEqual(appended.slice(2).map((event) => event.id));
      const limited = await store.readAll({ after: second, maxCount: 2 });
      expect(limited.map((event) => event.id)).toEqual(appended.slice(2, 4).map((event) => event.id));
    });

    it('a data-only read gives the same positions, ids, streams, revisions, types, data and times, in the same order', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      const head = await store.headPosition();
      for (const [index, streamId] of [`${prefix}-a`, `${prefix}-b`, `${prefix}-a`].entries()) {
        await store.appendToStream(streamId, [newEvent('Visited', { streamId, index, nested: { list: [index, 'x'] } })], { expectedRevision: 'any' });
      }
      const projected = (events: RecordedEvent[]) => events.filter((event) => event.streamId.startsWith(prefix))
        .map(({ position, id, streamId, revision, type, data, metadata }) => ({ position, id, streamId, revision, type, data, time: metadata.time }));
      const whole = projected(await store.readAll({ after: head, maxCount: 100 }));
      expect(whole).toHaveLength(3);
      expect(projected(await store.readAll({ after: head, maxCount: 100, dataOnly: true }))).toEqual(whole);
    });

    it('a data-only read of some types\' data gives the same events in the same order, with those types\' data', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      const head = await store.headPosition();
      for (const [index, type] of ['Kept', 'Skipped', 'Kept', 'Other', 'Skipped'].entries()) {
        await store.appendToStream(`${prefix}-${index % 2}`, [newEvent(type, { index, nested: { list: [index] } })], { expectedRevision: 'any' });
      }
      const ours = (events: RecordedEvent[]) => events.filter((event) => event.streamId.startsWith(prefix));
      const whole = ours(await store.readAll({ after: head, maxCount: 100, dataOnly: true }));
      expect(whole).toHaveLength(5);
      const ofTypes = ours(await store.readAll({ after: head, maxCount: 100, dataOnly: true, dataOfTypes: ['Kept', 'Other'] }));
      const skeleton = ({ position, streamId, revision, type }: RecordedEvent) => ({ position, streamId, revision, type });
      expect(ofTypes.map(skeleton)).toEqual(whole.map(skeleton));
      const shown = ({ id, data, metadata }: RecordedEvent) => ({ id, data, time: metadata.time });
      expect(ofTypes.filter(({ type }) => type !== 'Skipped').map(shown)).toEqual(whole.filter(({ type }) => type !== 'Skipped').map(shown));
      // Left out or not (an adapter may return it all), other types' data is never something else.
      for (const [index, event] of ofTypes.entries()) {
        if (event.type === 'Skipped') expect([{}, whole[index]?.data]).toContainEqual(event.data);
      }
      // maxCount counts every event, those without their data too.
      const second = whole[0]?.position ?? null;
      expect((await store.readAll({ after: second, maxCount: 2, dataOnly: true, dataOfTypes: ['Kept'] })).map(skeleton))
        .toEqual((await store.readAll({ after: second, maxCount: 2, dataOnly: true })).map(skeleton));
    });
  });
}
