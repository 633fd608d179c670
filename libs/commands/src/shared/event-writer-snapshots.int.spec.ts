import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import {
  type AssessmentEvent, type AssessmentState, assessmentSnapshots, assessmentStream, candidateEmailStream, evolveAssessment, initialAssessmentState, requireAssessment,
} from '#domain';
import {
  type EventStore, IntegrityEventStore, PersonKeyStore, PersonalDataEventStore, SnapshotStore, createPostgresEventStore, integrityKeys,
} from '#event-store';
import { loadConfig, systemClock } from '#platform';
import { EventWriter } from './event-writer.js';
import { assessmentFold, candidateEmailFold } from './folds.js';
import { systemContext } from './ports.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const WORKSPACE = 'ws-snap';
const created = (assessmentId: string): AssessmentEvent => ({
  type: 'AssessmentCreated',
  data: { assessmentId, workspaceId: WORKSPACE, name: 'Snapshots', tests: [], deadline: null, inviteToken: 'token', createdAt: new Date(0).toISOString() },
});
const invited = (assessmentId: string, index: number): AssessmentEvent => ({
  type: 'CandidateInvited',
  data: {
    assessmentId, workspaceId: WORKSPACE, assessmentName: 'Snapshots', deadline: null, invitationId: `inv-${index}`, invitationToken: `tok-${index}`,
    mode: 'live', email: `person-${index}@example.com`, firstName: 'Named', surname: `Person ${index}`, invitedAt: new Date(0).toISOString(),
  },
});

/**
 * The write path with the real layers as the service stacks them (personal data sealed per person,
 * hash chains, snapshots beside the person keys) on the PostgreSQL server.
 */
describe('EventWriter: snapshots of long folds (PostgreSQL server)', () => {
  const schema = `snap_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  const secret = randomBytes(32).toString('base64url');
  let store: PersonalDataEventStore;
  let personKeys: PersonKeyStore;
  let snapshots: SnapshotStore;

  beforeAll(async () => {
    const log = new IntegrityEventStore(await createPostgresEventStore({ pool, schema, listen: false }), integrityKeys(secret).eventKey);
    personKeys = new PersonKeyStore(pool, secret, schema);
    await personKeys.prepare();
    snapshots = new SnapshotStore(pool, personKeys, schema);
    await snapshots.prepare();
    store = new PersonalDataEventStore(log, personKeys, snapshots);
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  /** Destroys the person's current key, as an erasure does with the keys that sealed the person's events. */
  const destroyPerson = async (workspaceId: string, email: string): Promise<number> => {
    const current = (await personKeys.keysFor([{ workspaceId, email }])).get(`${workspaceId}\u0000${email}`);
    return personKeys.destroyKeys(workspaceId, current === undefined ? [] : [current.keyId]);
  };

  /** A writer as a fresh process has it (nothing cached), counting the events it reads. */
  const freshWriter = () => {
    const read = { events: 0 };
    const counted = Object.create(store) as PersonalDataEventStore;
    counted.readStream = async (streamId, options) => {
      const events = await store.readStream(streamId, options);
      read.events += events.length;
      return events;
    };
    (counted as EventStore).readStreams = undefined;
    const writer = new EventWriter(counted, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    return { writer, read };
  };

  /** Creates an assessment and invites `count` people, 50 per decision. */
  const grow = async (writer: EventWriter, count: number): Promise<string> => {
    const assessmentId = `a-${randomUUID()}`;
    const streamId = assessmentStream(assessmentId);
    const decisions = [[created(assessmentId)]];
    for (let from = 0; from < count; from += 50) decisions.push(Array.from({ length: Math.min(50, count - from) }, (_, index) => invited(assessmentId, from + index)));
    for (const events of decisions) await appendThrough(writer, streamId, events);
    await writer.flushSnapshots();
    return assessmentId;
  };

  /** One decision that loads the stream and appends `events` to it. */
  const appendThrough = (writer: EventWriter, streamId: string, events: AssessmentEvent[]) =>
    writer.handle(streamId, systemContext('test'), async (streams) => {
      await streams.load(streamId, assessmentFold);
      return { appends: [{ streamId, events }], answer: undefined };
    });

  /** The stream's state as a decision of this writer loads it. */
  const load = (writer: EventWriter, streamId: string): Promise<AssessmentState> =>
    writer.handle(`read-${randomUUID()}`, systemContext('test'), async (streams) => ({ appends: [], answer: await streams.load(streamId, assessmentFold) }));

  /** The state folded from the whole stream, without any snapshot. */
  const foldAll = async (assessmentId: string): Promise<AssessmentState> =>
    (await store.readStream(assessmentStream(assessmentId))).reduce((state, event) => evolveAssessment(state, { type: event.type, data: event.data } as AssessmentEvent), initialAssessmentState());
  const invitations = (state: AssessmentState) => {
    const assessment = requireAssessment(state);
    return [...assessment.invitations].sort(([a], [b]) => a.localeCompare(b))
      .map(([address, invitation]) => [address, invitation.invitationId, invitation.token, invitation.person.firstName, invitation.person.surname]);
  };

  it('a fresh process folds a long stream from its snapshot and the events after it, to the same state', async () => {
    const assessmentId = await grow(freshWriter().writer, 400);
    const { rows } = await pool.query(`SELECT revision, body FROM "${schema}".state_snapshots WHERE stream_id = $1`, [assessmentStream(assessmentId)]);
    expect(rows).toHaveLength(1);
    const { revision, body } = rows[0] as { revision: number; body: string };
    expect(revision).toBeGreaterThanOrEqual(300);
    // Sealed: no address or name in clear.
    for (const clear of ['person-7@example.com', 'Person 7', 'Named']) expect(body).not.toContain(clear);

    const { writer, read } = freshWriter();
    const loaded = await load(writer, assessmentStream(assessmentId));
    expect(read.events).toBe(400 - revision);
    expect(invitations(loaded)).toEqual(invitations(await foldAll(assessmentId)));
    expect(invitations(loaded)).toHaveLength(400);
  });

  it('an erasure in the workspace makes its snapshots unreadable: the stream is folded in full, the erased address as erased', async () => {
    const assessmentId = await grow(freshWriter().writer, 200);
    expect(await destroyPerson(WORKSPACE, 'person-3@example.com')).toBe(1);

    const { writer, read } = freshWriter();
    const loaded = await load(writer, assessmentStream(assessmentId));
    expect(read.events).toBe(201);
    const addresses = invitations(loaded).map(([address]) => address);
    expect(addresses).not.toContain('person-3@example.com');
    expect(addresses).toContain('[erased]');
    expect(invitations(loaded)).toEqual(invitations(await foldAll(assessmentId)));
  });

  it('a snapshot that was tampered with, or moved to another stream, is not used', async () => {
    const first = await grow(freshWriter().writer, 150);
    const second = await grow(freshWriter().writer, 150);
    const table = `"${schema}".state_snapshots`;
    // Moved: the first stream's snapshot under the second's name.
    await pool.query(`UPDATE ${table} SET body = (SELECT body FROM ${table} WHERE stream_id = $1) WHERE stream_id = $2`, [assessmentStream(first), assessmentStream(second)]);
    // Tampered: one character of the sealed body changed.
    await pool.query(`UPDATE ${table} SET body = overlay(body placing (CASE WHEN substr(body, 60, 1) = 'A' THEN 'B' ELSE 'A' END) from 60 for 1) WHERE stream_id = $1`, [assessmentStream(first)]);
    for (const assessmentId of [first, second]) {
      const { writer, read } = freshWriter();
      const loaded = await load(writer, assessmentStream(assessmentId));
      expect(read.events).toBe(151);
      expect(invitations(loaded)).toEqual(invitations(await foldAll(assessmentId)));
    }
  });

  it('the loads of one decision still go to the store as one read: only a fold without a cached state asks for its snapshot first', async () => {
    const assessmentId = await grow(freshWriter().writer, 10);
    const calls: string[][] = [];
    const counted = Object.create(store) as PersonalDataEventStore;
    counted.readStream = (streamId, options) => { calls.push([streamId]); return store.readStream(streamId, options); };
    counted.readStreams = (streamIds, options) => { calls.push([...streamIds]); return store.readStreams(streamIds, options); };
    const writer = new EventWriter(counted, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    const streamId = assessmentStream(assessmentId);
    await load(writer, streamId);
    calls.length = 0;
    const registries = ['new-1@example.com', 'new-2@example.com'].map((email) => candidateEmailStream(WORKSPACE, email));
    await writer.handle(streamId, systemContext('test'), async (streams) => {
      await Promise.all([streams.load(streamId, assessmentFold), ...registries.map((registry) => streams.load(registry, candidateEmailFold))]);
      return { appends: [], answer: undefined };
    });
    expect(calls).toEqual([[streamId, ...registries]]);
  });

  it('a load takes no snapshot; a decision that commits onto a long tail takes one, written after it', async () => {
    const assessmentId = await grow(freshWriter().writer, 400);
    const streamId = assessmentStream(assessmentId);
    await pool.query(`TRUNCATE "${schema}".state_snapshots`);
    const written: number[] = [];
    const values: unknown[] = [];
    const counted = Object.create(store) as PersonalDataEventStore;
    counted.writeSnapshot = async (id, fold, snapshot) => {
      written.push(snapshot.revision);
      values.push(JSON.parse(JSON.stringify(snapshot.value)));
      await store.writeSnapshot(id, fold, snapshot);
    };
    const writer = new EventWriter(counted, systemClock, { waitForPosition: async () => true }, loadConfig({}), pino({ level: 'silent' }));
    await load(writer, streamId);
    await writer.flushSnapshots();
    expect(written).toEqual([]);

    await appendThrough(writer, streamId, [invited(assessmentId, 400)]);
    await writer.flushSnapshots();
    expect(written).toEqual([401]);
    // (Not read back through a fresh writer: the erasure test's key destroyed in this workspace less
    // than a minute ago makes the store refuse the write, as it must.)
    expect(invitations(assessmentSnapshots.decode(values[0]))).toEqual(invitations(await foldAll(assessmentId)));
  });

  it('a snapshot taken before an erasure in its workspace is not kept when its write comes after it', async () => {
    const workspaceId = `ws-late-${randomUUID()}`;
    const value = { invitations: [['late@example.com']] };
    await personKeys.keysFor([{ workspaceId, email: 'late@example.com' }]);
    const takenAt = Date.now();
    // The write queued before the erasure runs after it: the workspace's key would be a fresh one by then.
    expect(await destroyPerson(workspaceId, 'late@example.com')).toBe(1);
    await snapshots.write('stream-late', 'assessment', { revision: 7, version: 1, value, scope: workspaceId, takenAt });
    expect(await snapshots.read('stream-late', 'assessment')).toBeNull();
    // Taken well after the erasure (and its minute of margin for clocks): kept.
    await snapshots.write('stream-late', 'assessment', { revision: 8, version: 1, value, scope: workspaceId, takenAt: Date.now() + 120_000 });
    expect(await snapshots.read('stream-late', 'assessment')).toEqual({ revision: 8, version: 1, value });
  });
});
