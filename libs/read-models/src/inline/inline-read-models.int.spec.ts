import pg from 'pg';
import type { DomainEvent } from '#domain';
import { type EventStore, type InlineProjector, type StreamAppend, createPostgresEventStore } from '#event-store';
import { allProjections } from '../all-projections.js';
import { tableName } from '../document-store/postgres-sql.js';
import { rebuildReadModels } from '../rebuild/rebuild-read-models.js';
import { createHarness, silentLogger, type Harness } from '../test-support/harness.js';
import { TEST_DATABASE_URL } from '../test-support/postgres.js';
import { streamOf, toNewEvent } from '../test-support/recorded.js';
import { busyWorkspace } from '../test-support/scenario.js';
import { INLINE_READ_MODELS, createInlineReadModels } from './inline-read-models.js';

const SLOW = 60_000;

/** One appendToStreams per run of consecutive events of one stream, as the command handlers append. */
const appendOneByOne = async (eventStore: EventStore, events: readonly DomainEvent[]): Promise<{ position: bigint; inline: readonly string[] }[]> => {
  const results: { position: bigint; inline: readonly string[] }[] = [];
  let pending = null as StreamAppend | null;
  const flush = async () => {
    if (pending === null) return;
    const result = await eventStore.appendToStreams([pending]);
    results.push({ position: result.position, inline: result.inline ?? [] });
    pending = null;
  };
  for (const event of events) {
    const streamId = streamOf(event);
    if (pending?.streamId !== streamId) await flush();
    pending ??= { streamId, expectedRevision: 'any', events: [] };
    pending.events.push(toNewEvent(event));
  }
  await flush();
  return results;
};

describe('inline read models (PostgreSQL)', () => {
  let harness: Harness;
  let reference: Harness;
  beforeEach(async () => {
    [harness, reference] = await Promise.all([createHarness('rm_inline', allProjections), createHarness('rm_inline_ref', allProjections)]);
  });
  afterEach(() => Promise.all([harness.close(), reference.close()]));

  const inline = (announced: string[][] = []): InlineProjector =>
    createInlineReadModels({ schema: harness.database.schema, projections: allProjections, announce: (collections) => announced.push([...collections]), deployment: 'multi-process' });
  // Two worlds append the same events under ids of their own, and at positions that differ (an
  // append rolled back, concurrent appends interleaved): the feed's rows name both, so they are
  // compared by the event's stream and revision (the same in both), every other field as it is.
  const eventIds = async (of: Harness) => {
    const events = await of.eventStore.readAll({ after: null, maxCount: 100_000 });
    return new Map(events.flatMap((event) => [[event.id, `${event.streamId}@${event.revision}`], [event.position.toString().padStart(20, '0'), `${event.streamId}@${event.revision}`]] as const));
  };
  const sameIds = (ids: ReadonlyMap<string, string>, text: string) => text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => ids.get(id) ?? id)
    .replace(/"seq":"([0-9]{20})"/g, (whole, seq: string) => `"seq":"${ids.get(seq) ?? seq}"`);
  const snapshot = async (of: Harness) => {
    const ids = await eventIds(of);
    return Promise.all(allProjections.map(async ({ name }) => [name, JSON.parse(sameIds(ids, JSON.stringify(await of.all(name)))) as unknown] as const));
  };
  const served = async (of: Harness) => {
    const ids = await eventIds(of);
    return Promise.all(allProjections.filter((projection) => projection.served !== undefined).map(async ({ name }) => [
      name,
      (await of.documentStore.findServed(name, { where: [], orderBy: [{ field: 'id', direction: 'asc' }], limit: 100_000 }, () => 'not stored')).map(({ json }) => sameIds(ids, json)),
    ] as const));
  };
  /** The same events projected by the runner alone, in a schema of their own. */
  const expected = async (events: readonly DomainEvent[]) => {
    await reference.append(events);
    await reference.project();
    return { docs: await snapshot(reference), served: await served(reference) };
  };

  it('writes every read model in the append transaction: readable at commit, equal to what the runner builds', async () => {
    const announced: string[][] = [];
    harness.eventStore.useInlineProjectors?.([inline(announced)]);
    const events = [...busyWorkspace('w1', 12), ...busyWorkspace('w2', 4)];
    const results = await appendOneByOne(harness.eventStore, events);

    expect(results.every((result) => result.inline.includes(INLINE_READ_MODELS))).toBe(true);
    // No runner ever ran: the documents and the checkpoints were written by the appends themselves.
    const head = await harness.eventStore.headPosition();
    expect(await harness.documentStore.checkpoints(allProjections.map(({ name }) => name))).toEqual(new Map(allProjections.map(({ name }) => [name, head])));
    const want = await expected(events);
    expect(await snapshot(harness)).toEqual(want.docs);
    expect(await served(harness)).toEqual(want.served);
    expect(announced.flat()).toEqual(expect.arrayContaining(['api-keys', 'candidates', 'results']));
  }, SLOW);

  it('applies from two store objects sharing the pool: statements one prepared on a connection serve the other', async () => {
    harness.eventStore.useInlineProjectors?.([inline()]);
    const other = await createPostgresEventStore({ pool: harness.database.pool, schema: harness.database.schema, listen: false, logger: silentLogger });
    other.useInlineProjectors([inline()]);
    const events = busyWorkspace('w1', 6);
    const results: (readonly string[])[] = [];
    // Alternately, one after the other: the pool hands both the connection the last one released.
    for (const [index, event] of events.entries()) {
      const store = index % 2 === 0 ? harness.eventStore : other;
      results.push((await store.appendToStreams([{ streamId: streamOf(event), expectedRevision: 'any', events: [toNewEvent(event)] }])).inline ?? []);
    }
    expect(results.every((inlined) => inlined.includes(INLINE_READ_MODELS))).toBe(true);
    const want = await expected(events);
    expect(await snapshot(harness)).toEqual(want.docs);
    await other.close();
  }, SLOW);

  it('prepares the statements of a projector added after appends on a connection that already served them', async () => {
    harness.eventStore.useInlineProjectors?.([inline()]);
    const [first, second] = busyWorkspace('w1', 1);
    const append = async (event: DomainEvent | undefined) => event === undefined ? [] :
      (await harness.eventStore.appendToStreams([{ streamId: streamOf(event), expectedRevision: 'any', events: [toNewEvent(event)] }])).inline ?? [];
    expect(await append(first)).toEqual([INLINE_READ_MODELS]);
    // Added later, as the runtime adds the e-mail outbox once messaging has started.
    const later: InlineProjector = {
      name: 'later',
      setup: [`PREPARE later_${harness.database.schema}(bigint) AS SELECT $1::bigint AS head`],
      prepare: () => ({ statements: [], finish: (_rows, head) => ({ statements: [`EXECUTE later_${harness.database.schema}(${head ?? 0})`] }) }),
    };
    harness.eventStore.useInlineProjectors?.([inline(), later]);
    expect(await append(second)).toEqual([INLINE_READ_MODELS, 'later']);
  }, SLOW);

  it('stands aside while the read models are behind the log; the runner catches up and inline work resumes', async () => {
    const before = busyWorkspace('w1', 6);
    await harness.append(before);
    harness.eventStore.useInlineProjectors?.([inline()]);
    const during = busyWorkspace('w2', 3);
    const behind = await appendOneByOne(harness.eventStore, during);
    expect(behind.every((result) => result.inline.length === 0)).toBe(true);

    const runner = await harness.startRunner({ followsInline: true });
    expect(await runner.waitForPosition(behind.at(-1)?.position ?? 0n, 10_000)).toBe(true);
    const after = busyWorkspace('w3', 3);
    const resumed = await appendOneByOne(harness.eventStore, after);
    expect(resumed.every((result) => result.inline.includes(INLINE_READ_MODELS))).toBe(true);
    // The runner, still following, takes the inline work up instead of doing it again.
    expect(await runner.waitForPosition(resumed.at(-1)?.position ?? 0n, 10_000)).toBe(true);
    expect(runner.position).toBe(resumed.at(-1)?.position);

    const want = await expected([...before, ...during, ...after]);
    expect(await snapshot(harness)).toEqual(want.docs);
    expect(await served(harness)).toEqual(want.served);
  }, SLOW);

  it('applies the read models at the head at once while the runner builds one new in this release from the log under appends', async () => {
    // A log an older release wrote: every read model it knew is at the head, the new one has no checkpoint.
    const older = allProjections.filter((projection) => projection.name !== 'events');
    const before = [...busyWorkspace('w1', 6), ...busyWorkspace('w2', 3)];
    await harness.append(before);
    await harness.project({ projections: older });
    expect((await harness.documentStore.checkpoints(['events'])).get('events')).toBeNull();

    harness.eventStore.useInlineProjectors?.([inline()]);
    const during = busyWorkspace('w3', 2);
    const applied = await appendOneByOne(harness.eventStore, during);
    // The others show each write at once; the new one is left to the runner.
    expect(applied.every((result) => result.inline.includes(INLINE_READ_MODELS))).toBe(true);
    expect((await harness.documentStore.checkpoints(['candidates'])).get('candidates')).toBe(applied.at(-1)?.position);
    expect((await harness.documentStore.checkpoints(['events'])).get('events')).toBeNull();

    // The runner builds it while appends go on, every one of them inline for the others.
    const runner = await harness.startRunner({ followsInline: true, checkpointCheckMs: 20, batchSize: 20 });
    const meanwhile = [...busyWorkspace('w4', 3), ...busyWorkspace('w5', 3)];
    const concurrent = await appendOneByOne(harness.eventStore, meanwhile);
    expect(concurrent.every((result) => result.inline.includes(INLINE_READ_MODELS))).toBe(true);
    const head = concurrent.at(-1)?.position ?? 0n;
    expect(await runner.waitForPosition(head, 20_000)).toBe(true);
    // Once it is at the head, the next append applies it inline too.
    const last = await appendOneByOne(harness.eventStore, busyWorkspace('w6', 1));
    expect((await harness.documentStore.checkpoints(['events'])).get('events')).toBe(last.at(-1)?.position);

    const want = await expected([...before, ...during, ...meanwhile, ...busyWorkspace('w6', 1)]);
    expect(await snapshot(harness)).toEqual(want.docs);
    expect(await served(harness)).toEqual(want.served);
  }, SLOW);

  it('a following runner does not read the log that the inline work has already projected', async () => {
    // A store of its own on the same schema that never polls: the runner reads only when kicked, so
    // what it reads does not depend on when its polls fall between the appends.
    const store = await createPostgresEventStore({ pool: harness.database.pool, schema: harness.database.schema, pollIntervalMs: 600_000, listen: false, logger: silentLogger });
    store.useInlineProjectors([inline()]);
    let handedOver = 0;
    const counting = {
      subscribeToAll: (options: Parameters<EventStore['subscribeToAll']>[0]) =>
        store.subscribeToAll({ ...options, onBatch: (batch) => { handedOver += batch.length; return options.onBatch?.(batch) ?? Promise.resolve(); } }),
      headPosition: () => store.headPosition(),
    } as unknown as EventStore;
    const runner = await harness.startRunner({ eventStore: counting, followsInline: true, checkpointCheckMs: 600_000 });
    const events = ['w1', 'w2', 'w3'].flatMap((id) => busyWorkspace(id, 2));
    const results = await appendOneByOne(store, events);
    expect(results.every((result) => result.inline.includes(INLINE_READ_MODELS))).toBe(true);
    // Waiting kicks the runner: it looks at the checkpoints, finds the inline work there, and reads
    // after them. Reading the log instead, it was handed every event (and skipped each).
    expect(await runner.waitForPosition((await store.headPosition()) ?? 0n, 10_000)).toBe(true);
    // The wait ends at the look; a read after it would be under way: give it time to show.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(handedOver).toBe(0);
    await runner.stop();
    await store.close();
    const want = await expected(events);
    expect(await snapshot(harness)).toEqual(want.docs);
  }, SLOW);

  it('runs beside a following runner and concurrent appends, and a rebuild still equals live', async () => {
    harness.eventStore.useInlineProjectors?.([inline()]);
    const runner = await harness.startRunner({ followsInline: true, checkpointCheckMs: 20 });
    const workspaces = ['w1', 'w2', 'w3', 'w4'].map((id) => busyWorkspace(id, 5));
    const results = (await Promise.all(workspaces.map((events) => appendOneByOne(harness.eventStore, events)))).flat();
    expect(results.some((result) => result.inline.includes(INLINE_READ_MODELS))).toBe(true);
    const head = await harness.eventStore.headPosition();
    expect(await runner.waitForPosition(head ?? 0n, 10_000)).toBe(true);
    const live = await snapshot(harness);
    const liveServed = await served(harness);

    await rebuildReadModels({ eventStore: harness.eventStore, documentStore: harness.documentStore, projections: allProjections, batchSize: 50, logger: silentLogger });
    expect(await snapshot(harness)).toEqual(live);
    expect(await served(harness)).toEqual(liveServed);
    // After the switch-over inline work applies again (the rebuild left the checkpoints at the head).
    const more = await appendOneByOne(harness.eventStore, busyWorkspace('w5', 2));
    expect(more.every((result) => result.inline.includes(INLINE_READ_MODELS))).toBe(true);
    expect(await runner.waitForPosition(more.at(-1)?.position ?? 0n, 10_000)).toBe(true);

    const wantEvents = [...workspaces.flat(), ...busyWorkspace('w5', 2)];
    const want = await expected(wantEvents);
    expect(await snapshot(harness)).toEqual(want.docs);
  }, SLOW);

  it('reads the documents an append touches by index once the tables have grown past their statistics', async () => {
    // A prepared statement's plan lasts until the table's statistics change. Analyzed while a table
    // was tiny, the cached plan of `id = ANY($1)` read the whole table at every append once it had
    // grown (385 pages per append at 20k invitations, with the append lock held). One connection,
    // autovacuum off on the read models' tables, statistics taken while they hold one workspace.
    const { schema } = harness.database;
    const planned = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    const store = await createPostgresEventStore({ pool: planned, schema, listen: false, logger: silentLogger });
    const projector = inline();
    try {
      store.useInlineProjectors([projector]);
      const events = busyWorkspace('w1', 4);
      await appendOneByOne(store, events.slice(0, 1));
      for (const { name } of allProjections) {
        await planned.query(`ALTER TABLE "${schema}"."${tableName(name)}" SET (autovacuum_enabled = false); ANALYZE "${schema}"."${tableName(name)}"`);
      }
      // More than five appends: the connection then settles on the plan it caches.
      const results = await appendOneByOne(store, events.slice(1));
      expect(results.length).toBeGreaterThan(5);
      expect(results.every((result) => result.inline.includes(INLINE_READ_MODELS))).toBe(true);
      for (const { name } of allProjections) {
        await planned.query(`INSERT INTO "${schema}"."${tableName(name)}" (id, doc, json, position)
          SELECT 'grown-' || g, jsonb_build_object('padding', repeat('x', 400)), repeat('y', 400), g FROM generate_series(1, 5000) g`);
      }
      // The statements of an append of events touching every read model, run as it runs them, each
      // read explained where it would run.
      const statements = projector.prepare(busyWorkspace('w2', 2).map((event) => toNewEvent(event))).statements.map((statement) => statement.sql);
      const isRead = (statement: string): boolean => /^EXECUTE rm_inline_read_(?!checkpoints)/.test(statement);
      expect(statements.filter(isRead).length).toBeGreaterThanOrEqual(4);
      const client = await planned.connect();
      try {
        await client.query('BEGIN');
        for (const statement of statements) {
          if (!isRead(statement)) {
            await client.query(statement);
            continue;
          }
          const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
          expect(plan).toContain('Index');
          expect(plan).not.toContain('Seq Scan on rm_');
        }
        // The rest of the transaction plans as usual.
        expect((await client.query<{ enable_seqscan: string }>('SHOW enable_seqscan')).rows[0]?.enable_seqscan).toBe('on');
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    } finally {
      await store.close();
      await planned.end();
    }
  }, SLOW);

  it('a projector that fails leaves the events appended without it, and the runner does its work from the log', async () => {
    const failing: InlineProjector = {
      name: 'failing',
      prepare: () => ({ statements: [], finish: () => { throw new Error('projector bug'); } }),
    };
    harness.eventStore.useInlineProjectors?.([inline(), failing]);
    const events = busyWorkspace('w1', 3);
    const results = await appendOneByOne(harness.eventStore, events);
    expect(results.every((result) => result.inline.length === 0)).toBe(true);
    // Every event is in the log once; no read model was written with them.
    expect(await harness.eventStore.readAll({ after: null, maxCount: 10_000 })).toHaveLength(events.length);
    expect((await harness.documentStore.checkpoints(['candidates'])).get('candidates')).toBeNull();

    // A statement the server refuses rolls the whole transaction back too, events included, before they are sent again alone.
    const refused: InlineProjector = { name: 'refused', prepare: () => ({ statements: [], finish: () => ({ statements: ['SELECT * FROM no_such_table'] }) }) };
    harness.eventStore.useInlineProjectors?.([refused]);
    const more = busyWorkspace('w2', 1);
    await appendOneByOne(harness.eventStore, more);
    expect(await harness.eventStore.readAll({ after: null, maxCount: 10_000 })).toHaveLength(events.length + more.length);

    await harness.project({ followsInline: true });
    const want = await expected([...events, ...more]);
    expect(await snapshot(harness)).toEqual(want.docs);
  }, SLOW);
});
