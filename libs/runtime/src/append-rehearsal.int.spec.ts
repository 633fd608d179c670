import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { pino } from 'pino';
import { assessmentStream, workspaceStream } from '#domain';
import { type InlineProjector, LogVerifier, type NewEvent, type StreamAppend, sqlLiteral } from '#event-store';
import { EventWriter, InviteCandidates, InviteCandidatesHandler, rehearseInvitation, systemContext } from '#commands';
import { loadConfig, systemClock } from '#platform';
import type { Stores } from './create-infrastructure.js';
import { openScratchStores } from './testing/scratch-stores.js';

jest.setTimeout(60_000);

const logger = pino({ level: 'silent' });
const metadata = { correlationId: 'rehearsal', causationId: null, actor: 'system', requestId: 'rehearsal', time: new Date().toISOString() };

/** An assessment created and one person invited to it: what the warm-up rehearses (rehearseInvitation). */
const invitation = (workspaceId: string, assessmentId: string, email: string): NewEvent[] => [
  { id: randomUUID(), type: 'AssessmentCreated', metadata, data: { assessmentId, workspaceId, name: 'Rehearsed', tests: [], deadline: null, inviteToken: 'token', createdAt: metadata.time } },
  {
    id: randomUUID(), type: 'CandidateInvited', metadata, data: {
      assessmentId, workspaceId, assessmentName: 'Rehearsed', deadline: null, invitationId: `inv-${randomUUID()}`, invitationToken: 'invitation-token',
      mode: 'live', email, firstName: 'Re', surname: 'Hearsed', invitedAt: metadata.time,
    },
  },
];

/**
 * EventStore.rehearseAppend through the service's own stack (personal data, integrity, the SQL
 * adapter) with an inline projector writing rows of its own: the whole transaction runs (the
 * projector sees the recorded events in clear) and nothing of it is kept, in the database or in any
 * layer's memory: the same append made for real afterwards stores the person's key, its events and
 * the projector's rows, and a rehearsal onto an existing stream leaves its next append unharmed.
 */
describe.each(['embedded', 'postgres'] as const)('a rehearsed append keeps nothing (%s)', (kind) => {
  let stores: Stores;
  let cleanUp: () => Promise<void>;
  const committed: string[] = [];
  const projected: { type: string; email: unknown }[] = [];

  const probe: InlineProjector = {
    name: 'rehearsal-probe',
    prepare: () => ({
      statements: [{ sql: 'SELECT count(*)::int AS n FROM rehearsal_probe', name: 'count' }],
      finish: (rows, _head, recorded) => {
        expect(rows('count')).toHaveLength(1);
        projected.push(...recorded.map((event) => ({ type: event.type, email: event.data.email })));
        return {
          statements: recorded.map((event) => `INSERT INTO rehearsal_probe (event_id) VALUES (${sqlLiteral(event.id)})`),
          onCommitted: () => committed.push(...recorded.map((event) => event.id)),
        };
      },
    }),
  };

  beforeAll(async () => {
    ({ stores, remove: cleanUp } = await openScratchStores(kind, 'rehearsal', logger));
    await stores.sqlPool.query('CREATE TABLE rehearsal_probe (event_id text PRIMARY KEY)');
    expect(stores.inline).not.toBeNull();
    stores.inline?.add(probe);
  });

  afterAll(async () => {
    await stores?.stop();
    await cleanUp?.();
  });

  const counts = async () => {
    const { rows } = await stores.sqlPool.query<{ keys: number; probed: number }>(
      'SELECT (SELECT count(*)::int FROM person_keys) AS keys, (SELECT count(*)::int FROM rehearsal_probe) AS probed',
    );
    return { ...rows[0], head: await stores.eventStore.headPosition() };
  };

  /** What the audit verifier finds in the whole log's hash chains (a link made over a rehearsed event would break one). */
  const findings = async (): Promise<string[]> => {
    const verifier = new LogVerifier({ eventKey: stores.audit.keys.eventKey, trustedPublicKey: null });
    for (const event of await stores.audit.logStore.readAll({ after: null, maxCount: 10_000 })) verifier.add(event);
    return verifier.finish().findings;
  };

  it('runs the transaction, the projector included, and rolls it back; the same append then commits as if it never ran', async () => {
    const rehearse = stores.eventStore.rehearseAppend?.bind(stores.eventStore);
    expect(rehearse).toBeDefined();
    const workspaceId = `ws_${randomUUID()}`;
    const stream = assessmentStream(`asm_${randomUUID()}`);
    const email = `rehearsed-${randomUUID()}@example.com`;
    const before = await counts();

    await rehearse?.([{ streamId: stream, expectedRevision: 'no_stream', events: invitation(workspaceId, stream.slice('assessment-'.length), email) }]);

    // The projector saw the events as recorded, the address in clear (the log would hold it sealed)...
    expect(projected.map((event) => event.type)).toEqual(expect.arrayContaining(['AssessmentCreated', 'CandidateInvited']));
    expect(projected.find((event) => event.type === 'CandidateInvited')?.email).toBe(email);
    // ...and nothing is left of it.
    expect(await counts()).toEqual(before);
    expect(committed).toEqual([]);
    expect(await stores.eventStore.readStream(stream)).toEqual([]);

    const append: StreamAppend = { streamId: stream, expectedRevision: 'no_stream', events: invitation(workspaceId, stream.slice('assessment-'.length), email) };
    const result = await stores.eventStore.appendToStreams([append]);
    expect(result.nextRevision).toBe(1);
    const after = await counts();
    expect(after).toEqual({ keys: (before.keys ?? 0) + 1, probed: (before.probed ?? 0) + 2, head: result.position });
    expect(committed).toEqual(append.events.map((event) => event.id));
    const read = await stores.eventStore.readStream(stream);
    expect(read.map((event) => [event.type, event.data.email])).toEqual([['AssessmentCreated', undefined], ['CandidateInvited', email]]);
    // Sealed in the log itself, under the key just stored (not the rehearsal's proposal, which no row holds).
    const stored = await stores.audit.logStore.readStream(stream);
    expect(stored[1]?.data.email).not.toBe(email);
    expect(await findings()).toEqual([]);
  });

  it('a rehearsal onto an existing stream leaves the next real append onto the same revision unharmed, its hash chain included', async () => {
    const workspaceId = `ws_${randomUUID()}`;
    const assessmentId = `asm_${randomUUID()}`;
    const stream = assessmentStream(assessmentId);
    const [created, first] = invitation(workspaceId, assessmentId, `first-${randomUUID()}@example.com`) as [NewEvent, NewEvent];
    await stores.eventStore.appendToStreams([{ streamId: stream, expectedRevision: 'no_stream', events: [created] }]);
    const second = (): NewEvent => ({ ...first, id: randomUUID() });
    const before = await counts();

    await stores.eventStore.rehearseAppend?.([{ streamId: stream, expectedRevision: 0, events: [second()] }]);
    expect(await counts()).toEqual(before);

    const real = second();
    await stores.eventStore.appendToStreams([{ streamId: stream, expectedRevision: 0, events: [real] }]);
    const chain = await stores.audit.logStore.readStream(stream);
    expect(chain.map((event) => event.id)).toEqual([created.id, real.id]);
    expect(await findings()).toEqual([]);
  });

  it('the warm-up\'s rehearsal (rehearseInvitation): an assessment made up and one person invited, through the write path, and nothing kept', async () => {
    const writer = new EventWriter(stores.eventStore, systemClock, { waitForPosition: async () => true }, loadConfig({}), logger);
    const before = await counts();
    projected.length = 0;
    await rehearseInvitation(writer);
    // Once on each of the pool's connections (none is held by anyone else here): the embedded store has one.
    const connections = kind === 'postgres' ? (stores.sqlPool.options.max ?? 1) : 1;
    expect(projected.map((event) => event.type)).toEqual(Array.from({ length: connections }, () => ['AssessmentCreated', 'CandidateInvited']).flat());
    expect(projected[1]?.email).toMatch(/^warm-up-.*@example\.com$/);
    expect(await counts()).toEqual(before);
    expect(await findings()).toEqual([]);
  });

  it('the warm-up\'s rehearsal on the assessments written to last: one made-up person invited to the last, nothing kept, and real invitations then decided on the states it loaded', async () => {
    const writer = new EventWriter(stores.eventStore, systemClock, { waitForPosition: async () => true }, loadConfig({}), logger);
    const workspaceId = `ws_${randomUUID()}`;
    const assessmentId = `asm_${randomUUID()}`;
    const [created] = invitation(workspaceId, assessmentId, 'unused@example.com') as [NewEvent];
    // An older one of the same workspace, which the rehearsal loads (its state cached) without inviting anyone to it.
    const olderId = `asm_${randomUUID()}`;
    const [older] = invitation(workspaceId, olderId, 'unused@example.com') as [NewEvent];
    await stores.eventStore.appendToStreams([
      { streamId: workspaceStream(workspaceId), expectedRevision: 'no_stream', events: [
        { id: randomUUID(), type: 'WorkspaceCreated', metadata, data: { workspaceId, name: 'Rehearsed', freeAllowance: 0, createdAt: metadata.time } },
        { id: randomUUID(), type: 'WorkspaceVerified', metadata, data: { workspaceId, verifiedAt: metadata.time } },
      ] },
      { streamId: assessmentStream(assessmentId), expectedRevision: 'no_stream', events: [created] },
      { streamId: assessmentStream(olderId), expectedRevision: 'no_stream', events: [older] },
    ]);
    const before = await counts();
    projected.length = 0;
    await rehearseInvitation(writer, [{ workspaceId, assessmentId }, { workspaceId, assessmentId: olderId }]);
    // The real assessment's state was folded and one person invited to it (no assessment made up), on each connection.
    const connections = kind === 'postgres' ? (stores.sqlPool.options.max ?? 1) : 1;
    expect(projected.map((event) => event.type)).toEqual(Array.from({ length: connections }, () => 'CandidateInvited'));
    expect(await counts()).toEqual(before);
    expect((await stores.eventStore.readStream(assessmentStream(assessmentId))).map((event) => event.type)).toEqual(['AssessmentCreated']);
    expect((await stores.eventStore.readStream(assessmentStream(olderId))).map((event) => event.type)).toEqual(['AssessmentCreated']);

    const email = `real-${randomUUID()}@example.com`;
    const result = await new InviteCandidatesHandler(writer).execute(new InviteCandidates(workspaceId, assessmentId, 'live', [{ email, firstName: 'Re', surname: 'Al' }], systemContext('real')));
    expect(result.outcomes.map((outcome) => outcome.status)).toEqual(['invited']);
    const read = await stores.eventStore.readStream(assessmentStream(assessmentId));
    expect(read.map((event) => [event.type, event.data.email])).toEqual([['AssessmentCreated', undefined], ['CandidateInvited', email]]);
    const toOlder = await new InviteCandidatesHandler(writer).execute(new InviteCandidates(workspaceId, olderId, 'live', [{ email, firstName: 'Re', surname: 'Al' }], systemContext('older')));
    expect(toOlder.outcomes.map((outcome) => outcome.status)).toEqual(['invited']);
    expect(await findings()).toEqual([]);
  });

  // The group appender's rehearsal of each pooled connection (PostgreSQL's pool: PGlite has one connection).
  (kind === 'postgres' ? it : it.skip)('rehearses a connection another holder had when it began once it is handed back, and does not wait for one never handed back', async () => {
    const pool = stores.sqlPool;
    // Held throughout, as the LISTEN connection is: the rehearsal ends without it (it would time the test out
    // waiting). It also watches the others.
    const kept = await pool.connect();
    try {
      // A follower's read: held when the rehearsal begins, handed back once the rehearsal waits for it.
      const follower = await pool.connect();
      const followerPid = (await follower.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const assessmentId = `asm_${randomUUID()}`;
      const rehearsed = stores.eventStore.rehearseAppend?.([{
        streamId: assessmentStream(assessmentId), expectedRevision: 'no_stream', events: invitation(`ws_${randomUUID()}`, assessmentId, `held-${randomUUID()}@example.com`),
      }]);
      const handBack = setInterval(() => {
        if (pool.waitingCount === 0) return;
        clearInterval(handBack);
        follower.release();
      }, 1);
      await rehearsed;
      clearInterval(handBack);
      // Its last statements were the rehearsal's (the projector's writes of the made-up assessment, then ROLLBACK).
      const last = await kept.query<{ query: string }>('SELECT query FROM pg_stat_activity WHERE pid = $1', [followerPid]);
      expect(last.rows[0]?.query).toContain(assessmentId);
    } finally {
      kept.release();
    }
  });
});
