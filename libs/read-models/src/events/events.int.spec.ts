import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '#domain';
import { assessment, at, candidate, candidateCreated, library, testCompleted, workspaceCreated } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { streamOf } from '../test-support/recorded.js';
import { workspacesProjection } from '../workspaces/workspaces.projection.js';
import { eventsProjection, type EventFeedDocument } from './events.projection.js';
import { listServedEvents, pruneFeed } from './events.queries.js';

/** Each event appended with its own domain time (the feed's createdAt). */
const appendAt = async (harness: Harness, events: readonly (readonly [DomainEvent, string])[]): Promise<void> => {
  for (const [event, time] of events) {
    await harness.eventStore.appendToStreams([{
      streamId: streamOf(event), expectedRevision: 'any',
      events: [{ id: randomUUID(), type: event.type, data: { ...event.data }, metadata: { correlationId: 'c', causationId: null, actor: 'system', requestId: 'r', time } }],
    }]);
  }
};

describe('the events feed read model (PostgreSQL)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness('rm_events', [workspacesProjection, eventsProjection]);
  });
  afterAll(() => harness.close());

  const listed = async (workspaceId: string, since = '2000-01-01T00:00:00.000Z') =>
    (await listServedEvents(harness.documentStore, { workspaceId, mode: 'live', since, limit: 100 })).rows.map((json) => (JSON.parse(json) as { createdAt: string }).createdAt);

  it('prunes the listed rows of events older than the cutoff, and nothing else', async () => {
    const a1 = assessment('w1', 'a1');
    const old = candidate('w1', 'old');
    const recent = candidate('w1', 'recent');
    const elsewhere = candidate('w2', 'other');
    const cutoff = '2026-10-01T00:00:00.000Z';
    await appendAt(harness, [
      [workspaceCreated('w1', at(0)), '2026-08-01T00:00:00.000Z'],
      [workspaceCreated('w2', at(0)), '2026-08-01T00:00:00.000Z'],
      [candidateCreated(old, at(0)), '2026-09-01T10:00:00.000Z'],
      // Finished before the cutoff, never unlocked: its unlock's context row stays.
      [testCompleted(old, a1, 'old-r0', library('numerical'), at(1)), '2026-09-02T10:00:00.000Z'],
      [candidateCreated(elsewhere, at(0)), '2026-09-03T10:00:00.000Z'],
      [candidateCreated(recent, at(0)), cutoff],
      [testCompleted(recent, a1, 'recent-r0', library('numerical'), at(1)), '2026-10-02T10:00:00.000Z'],
    ]);
    await harness.project();
    expect(await listed('w1')).toStrictEqual(['2026-09-01T10:00:00.000Z', '2026-09-02T10:00:00.000Z', cutoff, '2026-10-02T10:00:00.000Z']);
    const shownFromCutoff = await listed('w1', cutoff);

    expect(await pruneFeed(harness.documentStore, cutoff)).toBe(3);
    expect(await listed('w1')).toStrictEqual(shownFromCutoff);
    expect(await listed('w1', cutoff)).toStrictEqual(shownFromCutoff);
    expect(await listed('w2')).toStrictEqual([]);
    const kept = await harness.documentStore.get<EventFeedDocument>('events', 'unlocked:old-r0');
    expect(kept).toMatchObject({ seq: null, result: { resultId: 'old-r0' } });
    // Nothing left to do, and the projection's checkpoints did not move.
    expect(await pruneFeed(harness.documentStore, cutoff)).toBe(0);
    expect((await harness.documentStore.checkpoints(['events'])).get('events')).toBe(await harness.eventStore.headPosition());
  });
});
