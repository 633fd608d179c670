import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type Deployment, deployments } from './support/deployments.js';
import { ReadsWorld, SLUGS, TIME, expectStatus, type KeyPool, type Workspace } from './support/reads-world.js';

/**
 * GET /v1/assessments/{assessmentId}/invitations (API 1.2.0, docs/api.md "Invitations list"): every
 * invitation of an assessment in the key's mode, newest first, `pending` with its link until the
 * person registers through it, then `registered` with their candidate id; a deleted test candidate's
 * invitations are gone. Every answer is also checked against docs/openapi.json (test/support/client.ts).
 * Run on both deployments: the embedded store (PGlite) and a PostgreSQL server.
 */
jest.setTimeout(120_000);

const [FIRST] = SLUGS;
const enc = encodeURIComponent;

const DEPLOYMENTS = deployments('invitations-list');

describe.each(DEPLOYMENTS)('GET /v1/assessments/{id}/invitations on $name', (deployment) => {
  let database: Awaited<ReturnType<Deployment['database']>> | undefined;
  let world: ReadsWorld;
  let ws: Workspace;
  let other: Workspace;
  let live: KeyPool;
  let sandbox: KeyPool;
  let A: { id: string; inviteUrl: string };
  let people = 0;

  const path = (assessmentId: string, query = '') => `/v1/assessments/${assessmentId}/invitations${query}`;
  const rows = async (pool: KeyPool, assessmentId: string, query = ''): Promise<any[]> => pool.all(path(assessmentId, query));
  const emails = (list: { email: string }[]): string[] => list.map(({ email }) => email);
  const refusal = async (pool: KeyPool, url: string) => {
    const answer = await pool.get(url);
    return { status: answer.status, code: answer.body?.error?.code };
  };
  const newAssessment = async (name: string, pool: KeyPool = live) => world.assessment(pool, name, [FIRST]);
  const nextAddress = (prefix = 'p') => {
    people += 1;
    return `${prefix}${people}@example.com`;
  };

  beforeAll(async () => {
    database = await deployment.database();
    world = await ReadsWorld.start(database.env);
    ws = await world.workspace({ name: 'Invitations Ltd', keys: 3 });
    other = await world.workspace({ name: 'Elsewhere Inc', keys: 1 });
    live = ws.live;
    sandbox = ws.sandbox;
    A = await newAssessment('Invitations A');
  });

  afterAll(async () => {
    await world?.stop();
    await database?.drop();
  });

  describe('an invitation in the list', () => {
    let entry: any;

    it('is pending with the link the invitation answer gave, then registered with its candidate and no link', async () => {
      entry = await world.invite(live, A.id, { email: '  Ann.Lee@Example.COM ', firstName: 'Ann', surname: 'Lee' });
      expect(entry).toMatchObject({ status: 'invited', email: 'ann.lee@example.com' });
      const pending = await live.ok(path(A.id));
      expect(pending).toEqual({
        data: [{ email: 'ann.lee@example.com', firstName: 'Ann', surname: 'Lee', status: 'pending', invitedAt: expect.stringMatching(TIME), invitationUrl: entry.invitationUrl, candidateId: null }],
        meta: { nextCursor: null },
      });
      expect(entry.invitationUrl).toMatch(new RegExp(`^${world.appUrl}/invitations/${A.id}/[A-Za-z0-9_-]+$`));
      // The invitation's time, as the events feed's candidateInvited envelope recorded it.
      const feed = (await live.ok('/v1/events?type=candidateInvited&limit=100')).data.filter((envelope: any) => envelope.data.invitation.email === 'ann.lee@example.com');
      expect(feed.map((envelope: any) => envelope.createdAt)).toEqual([pending.data[0].invitedAt]);

      const registered = expectStatus(await world.internal.register({ invitationUrl: entry.invitationUrl }), 201, 'register');
      const candidateId = registered.body.data.candidateId;
      expect(await live.ok(path(A.id))).toEqual({
        data: [{ ...pending.data[0], status: 'registered', invitationUrl: null, candidateId }],
        meta: { nextCursor: null },
      });
      // The same answer under the second base address.
      expect(await live.on('/api').ok(path(A.id))).toEqual(await live.ok(path(A.id)));
    });

    it('stays one row when the address is answered already_invited or already_candidate', async () => {
      const before = await rows(live, A.id);
      const again = expectStatus(await live.post(path(A.id), { candidates: [{ email: 'ann.lee@example.com', firstName: 'Other', surname: 'Name' }] }), 200).body;
      expect(again.data[0]).toMatchObject({ status: 'already_invited', reason: 'already_candidate' });
      const address = nextAddress('twice');
      const twice = expectStatus(await live.post(path(A.id), { candidates: [{ email: address }, { email: address.toUpperCase() }] }), 200).body;
      expect(twice.data.map((one: any) => one.status)).toEqual(['invited', 'already_invited']);
      const thrice = expectStatus(await live.post(path(A.id), { candidates: [{ email: address, firstName: 'Changed' }] }), 200).body;
      expect(thrice.data[0]).toMatchObject({ status: 'already_invited', reason: 'already_invited', invitationUrl: twice.data[0].invitationUrl });
      const after = await rows(live, A.id);
      expect(after.slice(1)).toEqual(before);
      expect(after[0]).toEqual({
        email: address, firstName: '', surname: '', status: 'pending', invitedAt: expect.stringMatching(TIME), invitationUrl: twice.data[0].invitationUrl, candidateId: null,
      });
    });

    it('never exists for an address refused in the request (failed)', async () => {
      const B = await newAssessment('Invitations failed');
      const liveAddress = nextAddress('live');
      await world.candidate(live, A.id, { email: liveAddress });
      const valid = nextAddress('ok');
      const answer = expectStatus(await live.post(path(B.id), {
        candidates: [{ email: 'not-an-address' }, 'not an object', { email: nextAddress('badname'), firstName: 7 }, { email: valid, firstName: 'Val', surname: 'Id' }],
      }), 200).body;
      expect(answer.meta).toEqual({ assessmentId: B.id, invited: 1, alreadyInvited: 0, failed: 3 });
      const refused = expectStatus(await sandbox.post(path(B.id), { candidates: [{ email: liveAddress }] }), 200).body;
      expect(refused.data[0]).toMatchObject({ status: 'failed', reason: 'live_candidate' });
      expect(emails(await rows(live, B.id))).toEqual([valid]);
      expect(await rows(sandbox, B.id)).toEqual([]);
    });

    it('of a live invitation taken up through the public sign-up link is registered, as open sign-up accepts it', async () => {
      const C = await newAssessment('Invitations open sign-up');
      const address = nextAddress('open');
      await world.invite(live, C.id, { email: address, firstName: 'Open', surname: 'Door' });
      const joined = expectStatus(await world.internal.register({ inviteUrl: C.inviteUrl, email: address, firstName: 'Open', surname: 'Door' }), 201, 'sign up');
      expect(await rows(live, C.id)).toEqual([expect.objectContaining({ email: address, status: 'registered', invitationUrl: null, candidateId: joined.body.data.candidateId })]);
    });

    it('of a sandbox invitation stays pending when the address signs up through the public link (a live candidate)', async () => {
      const D = await newAssessment('Invitations other mode');
      const address = nextAddress('mixed');
      const entry = await world.invite(sandbox, D.id, { email: address });
      expectStatus(await world.internal.register({ inviteUrl: D.inviteUrl, email: address, firstName: 'Live', surname: 'Now' }), 201, 'sign up');
      expect(await rows(sandbox, D.id)).toEqual([expect.objectContaining({ email: address, status: 'pending', invitationUrl: entry.invitationUrl, candidateId: null })]);
      expect(await rows(live, D.id)).toEqual([]);
      const viaLink = await world.internal.register({ invitationUrl: entry.invitationUrl });
      expect({ status: viaLink.status, code: viaLink.body.error?.code }).toEqual({ status: 409, code: 'live_candidate' });
    });

    it('stays listed once its assessment is closed', async () => {
      const E = await newAssessment('Invitations closed');
      const address = nextAddress('closed');
      await world.invite(live, E.id, { email: address });
      const before = await rows(live, E.id);
      expectStatus(await world.internal.close(E.id), 200, 'close');
      expect((await live.ok(`/v1/assessments/${E.id}`)).data.status).toBe('archived');
      expect(await rows(live, E.id)).toEqual(before);
      expect(before).toEqual([expect.objectContaining({ email: address, status: 'pending' })]);
    });
  });

  describe('filters and refusals', () => {
    let F: { id: string };
    let registeredAddress: string;
    let pendingAddresses: string[];

    beforeAll(async () => {
      F = await newAssessment('Invitations filters');
      registeredAddress = nextAddress('reg');
      await world.candidate(live, F.id, { email: registeredAddress });
      pendingAddresses = [nextAddress('pend'), nextAddress('pend')];
      for (const email of pendingAddresses) await world.invite(live, F.id, { email });
    });

    it('lists pending or registered ones with status, both without', async () => {
      expect(emails(await rows(live, F.id))).toEqual([...pendingAddresses].reverse().concat(registeredAddress));
      expect(emails(await rows(live, F.id, '?status=pending'))).toEqual([...pendingAddresses].reverse());
      expect(emails(await rows(live, F.id, '?status=registered'))).toEqual([registeredAddress]);
      expect((await rows(live, F.id, '?status=registered')).every((row) => row.status === 'registered' && typeof row.candidateId === 'string')).toBe(true);
    });

    it('refuses any other status, limit or cursor with 400, and changes nothing', async () => {
      const before = await rows(live, F.id);
      for (const query of ['?status=PENDING', '?status=invited', '?status=', '?status=pending&status=registered', '?status=pending,registered', '?limit=0', '?limit=101', '?limit=x']) {
        expect(await refusal(live, path(F.id, query))).toEqual({ status: 400, code: 'invalid_parameter' });
      }
      expect(await refusal(live, path(F.id, '?cursor=not-a-cursor'))).toEqual({ status: 400, code: 'invalid_cursor' });
      // A cursor belongs to its assessment, its status filter, its list and its mode.
      const cursor = (await live.ok(path(F.id, '?limit=1'))).meta.nextCursor;
      expect(typeof cursor).toBe('string');
      expect((await live.ok(path(F.id, `?limit=1&cursor=${enc(cursor)}`))).data).toHaveLength(1);
      expect(await refusal(live, path(A.id, `?limit=1&cursor=${enc(cursor)}`))).toEqual({ status: 400, code: 'invalid_cursor' });
      expect(await refusal(live, path(F.id, `?limit=1&status=pending&cursor=${enc(cursor)}`))).toEqual({ status: 400, code: 'invalid_cursor' });
      expect(await refusal(sandbox, path(F.id, `?limit=1&cursor=${enc(cursor)}`))).toEqual({ status: 400, code: 'invalid_cursor' });
      expect(await refusal(live, `/v1/candidates?limit=1&cursor=${enc(cursor)}`)).toEqual({ status: 400, code: 'invalid_cursor' });
      expect(await rows(live, F.id)).toEqual(before);
    });

    it('answers 404 not_found for an unknown assessment and for another workspace\'s', async () => {
      expect(await refusal(live, path('asm_doesnotexist0000'))).toEqual({ status: 404, code: 'not_found' });
      expect(await refusal(other.live, path(F.id))).toEqual({ status: 404, code: 'not_found' });
      expect(await refusal(other.sandbox, path(F.id, '?status=pending'))).toEqual({ status: 404, code: 'not_found' });
      const theirs = await world.assessment(other.live, 'Theirs', [FIRST]);
      await world.invite(other.live, theirs.id, { email: nextAddress('theirs') });
      expect(await refusal(live, path(theirs.id))).toEqual({ status: 404, code: 'not_found' });
      expect(await rows(other.live, theirs.id)).toHaveLength(1);
    });
  });

  describe('modes', () => {
    it('a sandbox key lists only sandbox invitations, a live key only live ones, on a shared assessment', async () => {
      const S = await newAssessment('Invitations shared', sandbox);
      const testAddress = nextAddress('test');
      const liveAddress = nextAddress('live');
      const testEntry = await world.invite(sandbox, S.id, { email: testAddress, firstName: 'Test' });
      await world.invite(live, S.id, { email: liveAddress, firstName: 'Live' });
      // An invitation is unique per address whatever the mode: the other mode's key is answered already_invited.
      const crossed = expectStatus(await live.post(path(S.id), { candidates: [{ email: testAddress }] }), 200).body;
      expect(crossed.data[0]).toMatchObject({ status: 'already_invited', reason: 'already_invited' });
      expect(await rows(sandbox, S.id)).toEqual([expect.objectContaining({ email: testAddress, firstName: 'Test', status: 'pending', invitationUrl: testEntry.invitationUrl })]);
      expect(emails(await rows(live, S.id))).toEqual([liveAddress]);
      const candidateId = expectStatus(await world.internal.register({ invitationUrl: testEntry.invitationUrl }), 201).body.data.candidateId;
      expect(await rows(sandbox, S.id, '?status=registered')).toEqual([expect.objectContaining({ email: testAddress, candidateId })]);
      expect(await rows(live, S.id, '?status=registered')).toEqual([]);
    });
  });

  describe('a deleted test candidate', () => {
    it('has no invitation listed anywhere, and their address invited again is a new row', async () => {
      const joinedOn = await newAssessment('Invitations deletion, joined', sandbox);
      const pendingOn = await newAssessment('Invitations deletion, never used', sandbox);
      const address = nextAddress('gone');
      const stays = nextAddress('stays');
      const first = await world.invite(sandbox, joinedOn.id, { email: address, firstName: 'Gone', surname: 'Soon' });
      await world.invite(sandbox, joinedOn.id, { email: stays });
      const elsewhere = await world.invite(sandbox, pendingOn.id, { email: address, firstName: 'Gone', surname: 'Soon' });
      const candidateId = expectStatus(await world.internal.register({ invitationUrl: first.invitationUrl }), 201).body.data.candidateId;
      expect(emails(await rows(sandbox, joinedOn.id))).toEqual([stays, address]);
      expect(emails(await rows(sandbox, pendingOn.id))).toEqual([address]);

      expect((await world.internal.call('DELETE', `/internal/candidates/${candidateId}`)).status).toBe(204);
      expect(emails(await rows(sandbox, joinedOn.id))).toEqual([stays]);
      expect(await rows(sandbox, pendingOn.id)).toEqual([]);
      expect(await rows(sandbox, joinedOn.id, '?status=registered')).toEqual([]);

      const again = await world.invite(sandbox, pendingOn.id, { email: address, firstName: 'New', surname: 'Person' });
      expect(again.invitationUrl).not.toBe(elsewhere.invitationUrl);
      expect(await rows(sandbox, pendingOn.id)).toEqual([
        { email: address, firstName: 'New', surname: 'Person', status: 'pending', invitedAt: expect.stringMatching(TIME), invitationUrl: again.invitationUrl, candidateId: null },
      ]);
    });
  });

  describe('paging', () => {
    it('follows nextCursor newest first while invitations are made, with no skip and no repeat', async () => {
      const P = await newAssessment('Invitations paging');
      for (let request = 0; request < 3; request += 1) {
        // Requests of three people: a request's invitations share one time, ordered among themselves by id.
        expectStatus(await live.post(path(P.id), { candidates: [0, 1, 2].map(() => ({ email: nextAddress('page') })) }), 200);
      }
      await world.invite(live, P.id, { email: nextAddress('page') });
      const original = await rows(live, P.id, '?limit=100');
      expect(original).toHaveLength(10);
      const times = original.map((row) => row.invitedAt);
      expect([...times].sort().reverse()).toEqual(times);

      const seen: any[] = [];
      const made: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: any = await live.ok(path(P.id, `?limit=3${cursor === null ? '' : `&cursor=${enc(cursor)}`}`));
        pages += 1;
        expect(page.data.length).toBeLessThanOrEqual(3);
        seen.push(...page.data);
        cursor = page.meta.nextCursor;
        if (cursor !== null) {
          // New invitations arrive between pages, and the next unseen invitee registers (their row changes, not its place).
          const email = nextAddress('late');
          made.push(email);
          await world.invite(live, P.id, { email });
          const next = original[seen.length];
          if (next !== undefined) expectStatus(await world.internal.register({ invitationUrl: next.invitationUrl }), 201, 'register');
        }
      } while (cursor !== null && pages < 20);

      expect(pages).toBe(4);
      expect(new Set(emails(seen)).size).toBe(seen.length);
      // The rows that existed before paging came exactly once each, in their order: no page boundary moved.
      expect(emails(seen).filter((email) => !made.includes(email))).toEqual(emails(original));
      expect(seen.map((row) => row.status)).toEqual(['pending', 'pending', 'pending', 'registered', 'pending', 'pending', 'registered', 'pending', 'pending', 'registered']);
      // The newer ones are ahead of the first page; a later read lists them first.
      expect(emails(await rows(live, P.id, '?limit=100'))).toEqual([...made].reverse().concat(emails(original)));
    });
  });
});
