import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import { type AssessmentEvent, type AssessmentState, DomainError, assessmentStream, requireAssessment } from '#domain';
import { createPostgresEventStore, type PostgresEventStore } from '#event-store';
import { systemClock } from '#platform';
import { loadConfig } from '#platform';
import { EventWriter, streamRead } from './event-writer.js';
import { assessmentFold } from './folds.js';
import { UnreadableStreamError } from './state-cache.js';
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

describe('EventWriter: load, decide, append, retry (PostgreSQL server)', () => {
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
    writer.handle(assessmentStream(assessmentId), systemContext('test'), async (streams) => {
      const seen = invitationsOf(await streams.load(assessmentStream(assessmentId), assessmentFold)).length;
      if (person === refused) throw new DomainError('validation_failed', 'refused on purpose');
      return { appends: [{ streamId: assessmentStream(assessmentId), events: [invited(assessmentId, person)] }], answer: seen };
    });

  /** The stream's state as a decision in a lane of its own reads it. */
  const stateOf = (writer: EventWriter, assessmentId: string): Promise<AssessmentState> =>
    writer.handle(`read-${randomUUID()}`, systemContext('test'), async (streams) => ({ appends: [], answer: await streams.load(assessmentStream(assessmentId), assessmentFold) }));

  const createdIn = async (assessmentId: string): Promise<void> => {
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'AssessmentCreated', data: created(assessmentId).data, metadata: systemMetadata() }], { expectedRevision: 'no_stream' });
  };

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
    await createdIn(assessmentId);
    const writer = writerOf();
    const seen = await Promise.all(Array.from({ length: 20 }, (_, person) => inviteNext(writer, assessmentId, person)));
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index));
    const events = await store.readStream(assessmentStream(assessmentId));
    expect(events.map((event) => event.revision)).toEqual(Array.from({ length: 21 }, (_, index) => index));
  });

  it('fails only the refused request of a batch; the others are appended', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await createdIn(assessmentId);
    const writer = writerOf();
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, person) => inviteNext(writer, assessmentId, person, 4)));
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'validation_failed', message: 'refused on purpose' });
    expect(await store.readStream(assessmentStream(assessmentId))).toHaveLength(10);
  });

  it('two writers on one stream (two processes) both succeed: a real conflict is decided again on a fresh read', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await createdIn(assessmentId);
    const [first, second] = [writerOf(), writerOf()];
    const seen = await Promise.all(Array.from({ length: 20 }, (_, person) => inviteNext(person % 2 === 0 ? first : second, assessmentId, person)));
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index));
    expect(invitationsOf(await stateOf(first, assessmentId))).toHaveLength(20);
  }, 30_000);

  it('lanes that share a stream (unlocks charging one workspace, completions reading it) never fail on a conflict', async () => {
    const shared = `a-${randomUUID()}`;
    await createdIn(shared);
    const writer = writerOf();
    // Even decisions append to the shared stream; odd ones only read it and append to a stream of their own.
    const decideOne = (index: number) => writer.handle(`lane-${shared}-${index}`, systemContext('test'), async (streams) => {
      await streams.load(assessmentStream(shared), assessmentFold);
      const append = index % 2 === 0
        ? { streamId: assessmentStream(shared), events: [invited(shared, index)] }
        : { streamId: assessmentStream(`${shared}-${index}`), events: [created(`${shared}-${index}`)] };
      return { appends: [append], answer: undefined };
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
    await createdIn(assessmentId);
    const writer = writerOf();
    expect(await inviteNext(writer, assessmentId, 0)).toBe(0);
    await store.appendToStream(assessmentStream(assessmentId), [{ id: randomUUID(), type: 'CandidateInvited', data: invited(assessmentId, 1).data, metadata: systemMetadata() }], { expectedRevision: 1 });
    expect(await inviteNext(writer, assessmentId, 2)).toBe(2);
    expect(await store.readStream(assessmentStream(assessmentId))).toHaveLength(4);
    expect(invitationsOf(await stateOf(writer, assessmentId)).sort()).toEqual(['person-0@example.com', 'person-1@example.com', 'person-2@example.com']);
  });

  it('a state is a value: what a decision read never changes, whatever is decided after it', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await createdIn(assessmentId);
    const writer = writerOf();
    await inviteNext(writer, assessmentId, 0);
    const kept = await stateOf(writer, assessmentId);
    await Promise.all([1, 2, 3].map((person) => inviteNext(writer, assessmentId, person)));
    expect(invitationsOf(kept)).toEqual(['person-0@example.com']);
    expect(invitationsOf(await stateOf(writer, assessmentId))).toHaveLength(4);
  });

  it('a decision may load a new stream an earlier decision of its batch appended to without reading it', async () => {
    const assessmentId = `a-${randomUUID()}`;
    const key = `lane-${assessmentId}`;
    const writer = writerOf();
    // The lane is busy with a first decision, so the next two queue and are decided in one batch.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const busy = writer.handle(key, systemContext('test'), async () => { await gate; return { appends: [], answer: undefined }; });
    const creating = writer.handle(key, systemContext('test'), async () =>
      ({ appends: [{ streamId: assessmentStream(assessmentId), events: [created(assessmentId)] }], answer: undefined }));
    const inviting = writer.handle(key, systemContext('test'), async (streams) => ({
      appends: [{ streamId: assessmentStream(assessmentId), events: [invited(assessmentId, 0)] }],
      answer: invitationsOf(await streams.load(assessmentStream(assessmentId), assessmentFold)).length,
    }));
    open();
    await Promise.all([busy, creating]);
    expect(await inviting).toBe(0);
    expect((await store.readStream(assessmentStream(assessmentId))).map(({ type, revision }) => [type, revision])).toEqual([['AssessmentCreated', 0], ['CandidateInvited', 1]]);
  });

  it('the streams the decisions of a batch name ahead are read for the whole batch in one read', async () => {
    const assessmentIds = [1, 2, 3].map(() => `a-${randomUUID()}`);
    for (const assessmentId of assessmentIds) await createdIn(assessmentId);
    const reads: string[][] = [];
    const counted = Object.create(store) as PostgresEventStore;
    counted.readStream = (id, options) => { reads.push([id]); return store.readStream(id, options); };
    counted.readStreams = (ids, options) => { reads.push([...ids]); return store.readStreams(ids, options); };
    const writer = new EventWriter(counted, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    const key = `reads-${randomUUID()}`;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const busy = writer.handle(key, systemContext('test'), async () => { await gate; return { appends: [], answer: undefined }; });
    // Three decisions queue behind it, each loading its own stream: one batch, one read.
    const named = assessmentIds.map((assessmentId) => writer.handle(key, systemContext('test'), async (streams) =>
      ({ appends: [], answer: requireAssessment(await streams.load(assessmentStream(assessmentId), assessmentFold)).id }), [streamRead(assessmentStream(assessmentId), assessmentFold)]));
    open();
    await busy;
    expect(await Promise.all(named)).toEqual(assessmentIds);
    expect(reads).toEqual([assessmentIds.map(assessmentStream)]);
  });

  it('decisions that queue in the lane while its batch is being decided join that batch: one append', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await createdIn(assessmentId);
    let appendCalls = 0;
    const counted = Object.create(store) as PostgresEventStore;
    counted.appendToStreams = (appends, options) => {
      appendCalls += 1;
      return store.appendToStreams(appends, options);
    };
    const writer = new EventWriter(counted, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    let deciding: () => void = () => undefined;
    const decidingFirst = new Promise<void>((resolve) => { deciding = resolve; });
    // The first decision starts a batch on an idle lane and is still deciding when three more arrive.
    const first = writer.handle(assessmentStream(assessmentId), systemContext('test'), async (streams) => {
      await streams.load(assessmentStream(assessmentId), assessmentFold);
      deciding();
      await gate;
      return { appends: [{ streamId: assessmentStream(assessmentId), events: [invited(assessmentId, 0)] }], answer: 0 };
    });
    await decidingFirst;
    const joining = [1, 2, 3].map((person) => inviteNext(writer, assessmentId, person));
    open();
    // Each joining decision sees the ones decided before it in the batch.
    expect(await Promise.all([first, ...joining])).toEqual([0, 1, 2, 3]);
    expect(appendCalls).toBe(1);
    expect(invitationsOf(await stateOf(writer, assessmentId))).toHaveLength(4);
  });

  it('a batch whose append fails for another reason than a conflict fails nothing but the decision at fault', async () => {
    const assessmentId = `a-${randomUUID()}`;
    await createdIn(assessmentId);
    // The real store, failing the appends that carry the poisoned person (as a constraint of the database would).
    const failing = Object.create(store) as PostgresEventStore;
    failing.appendToStreams = async (appends, options) => {
      if (appends.some((append) => append.events.some((event) => event.data.email === 'person-3@example.com'))) throw new Error('refused by the database');
      return store.appendToStreams(appends, options);
    };
    const writer = new EventWriter(failing, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, person) => inviteNext(writer, assessmentId, person)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(invitationsOf(await stateOf(writer, assessmentId))).toHaveLength(7);
  });
});

/** The addresses an assessment state holds invitations for. */
const invitationsOf = (state: AssessmentState): string[] => [...requireAssessment(state).invitations.keys()].sort();

const systemMetadata = () => ({ correlationId: 'test', causationId: null, actor: 'system', requestId: 'test', time: new Date(0).toISOString() });
