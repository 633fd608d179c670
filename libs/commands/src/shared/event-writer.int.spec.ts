import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import { type AssessmentEvent, DomainError, assessmentStream, evolveAssessment, initialAssessmentState, requireAssessment } from '#domain';
import { createPostgresEventStore, type PostgresEventStore } from '#event-store';
import { systemClock } from '#platform';
import { loadConfig } from '#platform';
import { EventWriter } from './event-writer.js';
import { UnreadableStreamError } from './folded-states.js';
import { systemContext } from './ports.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const created = (assessmentId: string): AssessmentEvent => ({
  type: 'AssessmentCreated',
  data: { assessmentId, workspaceId: 'ws', name: 'Writer', tests: [], deadline: null, inviteToken: 'token', createdAt: new Date(0).toISOString() },
});
const invited = (assessmentId: string, index: number): AssessmentEvent => ({
  type: 'CandidateInvited',
  data: {
    assessmentId, workspaceId: 'ws', assessmentName: 'Writer', deadline: null, invitationId: `inv-${index}`, invitationToken: `tok-${index}`,
    mode: 'live', email: `person-${index}@example.com`, firstName: 'P', surname: `${index}`, invitedAt: new Date(0).toISOString(),
  },
});

describe('EventWriter: one write path with group commit (PostgreSQL server)', () => {
  const schema = `writer_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  let store: PostgresEventStore;
  const writerOf = () =>
    new EventWriter(store, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));

  beforeAll(async () => {
    store = await createPostgresEventStore({ pool, schema, listen: false });
  });
  afterAll(async () => {
    await store.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  /** Invites `person` (refused when it is `refused`); answers how many invitations the decision saw. */
  const inviteNext = (writer: EventWriter, assessmentId: string, person: number, refused = -1) =>
    writer.decide(assessmentStream(assessmentId), async (batch) => {
      const loaded = await batch.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
      const seen = Object.keys(requireAssessment(loaded.state).invitations).length;
      if (person === refused) throw new DomainError('validation_failed', 'refused on purpose');
      batch.append([{ streamId: assessmentStream(assessmentId), expectedRevision: loaded.revision, events: [invited(assessmentId, person)] }], systemContext('test'), await batch.now());
      return seen;
    });

  it('refuses to decide on a stream holding an event type this version does not know (a newer version wrote it), appending nothing', async () => {
    const assessmentId = `a-${randomUUID()}`;
    const stream = assessmentStream(assessmentId);
    await store.appendToStream(stream, [
      { id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() },
      { id: randomUUID(), type: 'AssessmentRenamed', data: { assessmentId, name: 'Renamed' }, metadata: systemMetadata() },
    ], { expectedRevision: 'no_stream' });
    await expect(inviteNext(writerOf(), assessmentId, 0)).rejects.toBeInstanceOf(UnreadableStreamError);
    expect((await store.readStream(stream)).map(({ type }) => type)).toEqual(['AssessmentCreated', 'AssessmentRenamed']);
  });

  it('decides concurrent requests on one stream one after another, each seeing the ones before', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    const writer = writerOf();
    const seen = await Promise.all(Array.from({ length: 20 }, (_, person) => inviteNext(writer, assessmentId, person)));
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index));
    const events = await store.readStream(assessmentStream(assessmentId));
    expect(events.map((event) => event.revision)).toEqual(Array.from({ length: 21 }, (_, index) => index));
  });

  it('fails only the refused request of a batch; the others are appended', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    const writer = writerOf();
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, person) => inviteNext(writer, assessmentId, person, 4)));
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'validation_failed', message: 'refused on purpose' });
    expect(await store.readStream(assessmentStream(assessmentId))).toHaveLength(10);
  });

  it('lanes that share a stream (unlocks charging one workspace, completions reading it) never fail on a conflict', async () => {
    const shared = `a-${randomUUID()}`;
    await store.appendToStream(assessmentStream(shared), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(shared).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    const writer = writerOf();
    // Even decisions append to the shared stream; odd ones only read it and append to a stream of their own.
    const decideOne = (index: number) => writer.decide(`lane-${shared}-${index}`, async (batch) => {
      const loaded = await batch.load(assessmentStream(shared), initialAssessmentState, evolveAssessment);
      const now = await batch.now();
      if (index % 2 === 0) batch.append([{ streamId: assessmentStream(shared), expectedRevision: loaded.revision, events: [invited(shared, index)] }], systemContext('test'), now);
      else batch.append([{ streamId: assessmentStream(`${shared}-${index}`), expectedRevision: 'no_stream', events: [created(`${shared}-${index}`)] }], systemContext('test'), now);
    });
    let next = 0;
    const client = async (): Promise<void> => {
      for (let index = next++; index < 200; index = next++) await decideOne(index);
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, client));
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect(await store.readStream(assessmentStream(shared))).toHaveLength(101);
  }, 30_000);

  it('a cached state behind the log (an append behind this process\'s back) is brought up to date before deciding', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    const writer = writerOf();
    expect(await inviteNext(writer, assessmentId, 0)).toBe(0);
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'CandidateInvited', data: invited(assessmentId, 1).data, metadata: systemMetadata() }], { expectedRevision: 1 });
    expect(await inviteNext(writer, assessmentId, 2)).toBe(2);
    expect(await store.readStream(assessmentStream(assessmentId))).toHaveLength(4);
    const { state } = await writer.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
    expect(Object.keys(requireAssessment(state).invitations).sort()).toEqual(['person-0@example.com', 'person-1@example.com', 'person-2@example.com']);
  });

  it('decisions take the loads prefetched for them: read ahead together, not one decision after another', async () => {
    const assessmentIds = [1, 2, 3].map(() => `a-${randomUUID()}`);
    for (const assessmentId of assessmentIds) {
      await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    }
    const reads: string[][] = [];
    const counted = Object.create(store) as PostgresEventStore;
    counted.readStream = (id, options) => { reads.push([id]); return store.readStream(id, options); };
    counted.readStreams = (ids, options) => { reads.push([...ids]); return store.readStreams(ids, options); };
    const writer = new EventWriter(counted, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    const streams = assessmentIds.map(assessmentStream);
    writer.prefetch(streams, initialAssessmentState, evolveAssessment);
    // One decision loading them one after another, as the decisions of a batch do.
    const names = await writer.decide(`prefetch-${randomUUID()}`, async (batch) => {
      const found: string[] = [];
      for (const streamId of streams) found.push(requireAssessment((await batch.load(streamId, initialAssessmentState, evolveAssessment)).state).id);
      return found;
    });
    expect(names).toEqual(assessmentIds);
    expect(reads).toEqual([streams]);
    // Taken once: the next load reads (since the revision it knows).
    await writer.load(streams[0] ?? '', initialAssessmentState, evolveAssessment);
    expect(reads).toEqual([streams, [streams[0]]]);
  });

  it('a prefetched load older than a commit this process made to the stream since is not used', async () => {
    const assessmentId = `a-${randomUUID()}`;
    const streamId = assessmentStream(assessmentId);
    await store.appendToStream(streamId, [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const gated = Object.create(store) as PostgresEventStore;
    gated.appendToStreams = async (appends) => { await gate; return store.appendToStreams(appends); };
    const writer = new EventWriter(gated, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    // A batch has read the stream and waits to commit; meanwhile a request prefetches it (revision 0).
    const inFlight = inviteNext(writer, assessmentId, 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    writer.prefetch([streamId], initialAssessmentState, evolveAssessment);
    await new Promise((resolve) => setTimeout(resolve, 50));
    open();
    expect(await inFlight).toBe(0);
    const seen = await writer.decide(`other-${assessmentId}`, async (batch) =>
      Object.keys(requireAssessment((await batch.load(streamId, initialAssessmentState, evolveAssessment)).state).invitations));
    expect(seen).toEqual(['person-0@example.com']);
  });

  it('a batch that alone holds the cached state changes it in place instead of copying its records', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    const writer = writerOf();
    await inviteNext(writer, assessmentId, 0);
    const records = () => writer.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment).then(({ state }) => requireAssessment(state).invitations);
    const before = await records();
    await inviteNext(writer, assessmentId, 1);
    const after = await records();
    expect(after).toBe(before);
    expect(Object.keys(after)).toHaveLength(2);
  });

  it('another lane loading a stream a batch is changing in place gets the committed state, never the batch\'s', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    // The real store, with its appends held at a gate: the batch stays in flight while the other lane loads.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const gated = Object.create(store) as PostgresEventStore;
    gated.appendToStreams = async (appends) => { await gate; return store.appendToStreams(appends); };
    const writer = new EventWriter(gated, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    open();
    await inviteNext(writer, assessmentId, 0);
    let hold: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { hold = resolve; });
    gated.appendToStreams = async (appends) => { await held; return store.appendToStreams(appends); };
    const inFlight = inviteNext(writer, assessmentId, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const otherLane = await writer.decide(`other-lane-${assessmentId}`, async (batch) => {
      const loaded = await batch.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
      return Object.keys(requireAssessment(loaded.state).invitations);
    });
    expect(otherLane).toEqual(['person-0@example.com']);
    const peeked = await writer.peek(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
    expect(requireAssessment(peeked.state).workspaceId).toBe('ws');
    hold();
    expect(await inFlight).toBe(1);
    const { state } = await writer.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
    expect(Object.keys(requireAssessment(state).invitations).sort()).toEqual(['person-0@example.com', 'person-1@example.com']);
  });

  it('peeks at a state this process holds without reading the stream again, even on a store others write to', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
    const reads: string[] = [];
    const counted = Object.create(store) as PostgresEventStore;
    counted.readStream = (streamId, options) => { reads.push(streamId); return store.readStream(streamId, options); };
    counted.readStreams = (streamIds, options) => { reads.push(...streamIds); return store.readStreams(streamIds, options); };
    const writer = new EventWriter(counted, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    const first = await writer.peek(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
    expect(requireAssessment(first.state).workspaceId).toBe('ws');
    expect(reads).toEqual([assessmentStream(assessmentId)]);
    await inviteNext(writer, assessmentId, 0);
    reads.length = 0;
    const peeked = await writer.peek(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
    expect(Object.keys(requireAssessment(peeked.state).invitations)).toEqual(['person-0@example.com']);
    expect(reads).toEqual([]);
    // A load still reads what others may have appended since.
    await writer.load(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
    expect(reads).toEqual([assessmentStream(assessmentId)]);
    // With an age bound, a state confirmed longer ago than that is read again.
    reads.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 30));
    await writer.peek(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment, 1_000);
    expect(reads).toEqual([]);
    await writer.peek(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment, 10);
    expect(reads).toEqual([assessmentStream(assessmentId)]);
  });
});

const systemMetadata = () => ({ correlationId: 'test', causationId: null, actor: 'system', requestId: 'test', time: new Date(0).toISOString() });
