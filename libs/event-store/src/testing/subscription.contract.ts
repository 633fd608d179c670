import { describe, expect, it } from '@jest/globals';
import type { RecordedEvent } from '../event-store.port.js';
import { deferred, newEvents, streamPrefix, waitFor, type ContractContext } from './contract-support.js';

const WRITERS = 8;
const APPENDS_PER_WRITER = 40;
const STREAMS = 12;

export function subscriptionContract(context: ContractContext): void {
  describe('subscribe to all', () => {
    it('hands over events strictly after the checkpoint, one at a time, and reports catching up', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      const before = await store.appendToStream(`${prefix}-s`, newEvents(2), { expectedRevision: 'no_stream' });
      const seen: RecordedEvent[] = [];
      const caughtUp: Array<bigint | null> = [];
      let inHandler = 0;
      let overlapped = false;
      const subscription = store.subscribeToAll({
        after: before.position,
        handler: async (event) => {
          overlapped ||= inHandler > 0;
          inHandler += 1;
          await new Promise((resolve) => setTimeout(resolve, 2));
          if (event.streamId.startsWith(prefix)) seen.push(event);
          inHandler -= 1;
        },
        onCaughtUp: (position) => caughtUp.push(position),
      });
      try {
        await waitFor(() => caughtUp.length > 0, 5000, 'the first catch-up');
        const live = await store.appendToStream(`${prefix}-s`, newEvents(3), { expectedRevision: 1 });
        await waitFor(() => seen.length === 3 && caughtUp.at(-1) === live.position, 5000, 'three live events');
      } finally {
        await subscription.stop();
      }
      expect(seen.map((event) => event.revision)).toEqual([2, 3, 4]);
      expect(overlapped).toBe(false);
    });

    it('stop() waits for the handler in progress and nothing is handed over after it', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      const head = await store.headPosition();
      await store.appendToStream(`${prefix}-stop`, newEvents(3), { expectedRevision: 'no_stream' });
      const release = deferred();
      const handled: number[] = [];
      let entered = false;
      const subscription = store.subscribeToAll({
        after: head,
        handler: async (event) => {
          if (!event.streamId.startsWith(prefix)) return;
          entered = true;
          await release.promise;
          handled.push(event.revision);
        },
      });
      await waitFor(() => entered, 5000, 'the handler to start');

      let stopped = false;
      const stopping = subscription.stop().then(() => {
        stopped = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stopped).toBe(false);
      release.resolve();
      await stopping;
      await new Promise((resolve) => setTimeout(resolve, 100));

      expect(handled).toEqual([0]);
    });

    it('reports a failing handler to onError and stops', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      const head = await store.headPosition();
      await store.appendToStream(`${prefix}-fail`, newEvents(2), { expectedRevision: 'no_stream' });
      const failure = new Error('handler failed');
      const errors: unknown[] = [];
      let calls = 0;
      const subscription = store.subscribeToAll({
        after: head,
        handler: async (event) => {
          if (!event.streamId.startsWith(prefix)) return;
          calls += 1;
          throw failure;
        },
        onError: (error) => errors.push(error),
      });
      await waitFor(() => errors.length > 0, 5000, 'onError');
      await subscription.stop();
      expect(errors).toEqual([failure]);
      expect(calls).toBe(1);
    });

    it('a live subscriber sees every event of concurrent writers exactly once, in position and revision order', async () => {
      const { store } = context.subject();
      const prefix = streamPrefix();
      const head = await store.headPosition();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({
        after: head,
        handler: async (event) => {
          if (event.streamId.startsWith(prefix)) seen.push(event);
          // An occasional yield lets the subscriber fall behind and catch up while writers commit.
          if (seen.length % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
        },
      });

      let appended = 0;
      const writer = async (writerIndex: number): Promise<void> => {
        for (let index = 0; index < APPENDS_PER_WRITER; index += 1) {
          const streamId = `${prefix}-${(writerIndex * 7 + index) % STREAMS}`;
          const count = 1 + ((writerIndex + index) % 3);
          await store.appendToStream(streamId, newEvents(count), { expectedRevision: 'any' });
          appended += count;
        }
      };
      try {
        await Promise.all(Array.from({ length: WRITERS }, (_, writerIndex) => writer(writerIndex)));
        // On a timeout the assertions below say how many events were missed.
        await waitFor(() => seen.length >= appended, 10_000, `${appended} events`).catch(() => undefined);
        // Give duplicates, if any, a chance to arrive before counting.
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await subscription.stop();
      }

      expect(seen).toHaveLength(appended);
      expect(new Set(seen.map((event) => event.id)).size).toBe(appended);
      const positions = seen.map((event) => event.position);
      expect(positions.every((position, index) => index === 0 || (positions[index - 1] ?? position) < position)).toBe(true);
      const revisionsByStream = new Map<string, number[]>();
      for (const event of seen) revisionsByStream.set(event.streamId, [...(revisionsByStream.get(event.streamId) ?? []), event.revision]);
      for (const [streamId, revisions] of revisionsByStream) {
        expect({ streamId, revisions }).toEqual({ streamId, revisions: revisions.map((_, revision) => revision) });
      }
    }, 20_000);
  });
}
