import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ReadsWorld, SLUGS, expectStatus, ids, type KeyPool, type Workspace } from './support/reads-world.js';

/**
 * Sandbox keys read only test candidates and their results, live keys never see them (API 4.4);
 * deleting a test candidate removes them from every read (product decisions, Candidates and reads).
 */
jest.setTimeout(60_000);

const [FIRST, SECOND] = [SLUGS[0], SLUGS[1]];

let world: ReadsWorld;
let ws: Workspace;
let live: KeyPool;
let sandbox: KeyPool;
let A: { id: string; inviteUrl: string };
const who: Record<'L1' | 'L2' | 'S1' | 'S2' | 'S3', string> = { L1: '', L2: '', S1: '', S2: '', S3: '' };
const results: Record<string, string[]> = {};
let s1Invitation: string;
/** S1's invitation to a second assessment, never used. */
let s1PendingElsewhere: { assessmentId: string; invitationUrl: string };

const enc = encodeURIComponent;
const resultIdsOf = (...people: (keyof typeof who)[]) => people.flatMap((p) => results[who[p]] ?? []);
const sorted = (list: string[]) => [...list].sort();
const readsOf = async (pool: KeyPool) => ({
  candidates: ids(await pool.all('/v1/candidates?limit=2')),
  results: ids(await pool.all('/v1/results?limit=2')),
  completions: ids((await pool.ok('/v1/completions?limit=100')).data),
  legacy: (await pool.ok('/candidates?per_page=100')),
  count: (await pool.ok(`/v1/assessments/${A.id}`)).data.candidateCount as number,
  listedCount: (await pool.ok('/v1/assessments')).data.find((a: any) => a.id === A.id).candidateCount as number,
});

beforeAll(async () => {
  world = await ReadsWorld.start();
  ws = await world.workspace({ name: 'Sandbox GmbH', keys: 2 });
  live = ws.live;
  sandbox = ws.sandbox;
  // Created with a sandbox key: assessments are shared by both modes.
  A = await world.assessment(sandbox, 'Shared assessment', [FIRST, SECOND]);

  who.L1 = await world.candidate(live, A.id, { email: 'l1@example.com', firstName: 'Live', surname: 'One' });
  s1Invitation = (await world.invite(sandbox, A.id, { email: 's1@example.com', firstName: 'Test', surname: 'One' })).invitationUrl;
  who.S1 = expectStatus(await world.internal.register({ invitationUrl: s1Invitation }), 201).body.data.candidateId;
  const B = await world.assessment(sandbox, 'Second assessment', [FIRST]);
  s1PendingElsewhere = { assessmentId: B.id, invitationUrl: (await world.invite(sandbox, B.id, { email: 's1@example.com', firstName: 'Test', surname: 'One' })).invitationUrl };
  const l2 = expectStatus(await world.internal.register({ inviteUrl: A.inviteUrl, email: 'l2@example.com', firstName: 'Live', surname: 'Two' }), 201);
  who.L2 = l2.body.data.candidateId;
  who.S2 = await world.candidate(sandbox, A.id, { email: 's2@example.com', firstName: 'Test', surname: 'Two' });
  who.S3 = await world.candidate(sandbox, A.id, { email: 's3@example.com', firstName: 'Test', surname: 'Three' });

  for (const person of ['L1', 'S1'] as const) {
    const a = await world.complete(who[person], A.id, FIRST);
    const b = await world.complete(who[person], A.id, SECOND);
    results[who[person]] = [a.resultId, b.resultId];
    await world.unlock(a.resultId);
  }
  for (const person of ['L2', 'S2'] as const) results[who[person]] = [(await world.complete(who[person], A.id, FIRST)).resultId];
});

afterAll(async () => {
  await world?.stop();
});

describe('modes never mix', () => {
  it('a sandbox key reads only test candidates and their results', async () => {
    const reads = await readsOf(sandbox);
    expect(reads.candidates).toEqual([who.S3, who.S2, who.S1]);
    expect(sorted(reads.results)).toEqual(sorted(resultIdsOf('S1', 'S2')));
    expect(reads.completions).toEqual([`${who.S1}:${A.id}`]);
    expect(reads.legacy.count).toBe(3);
    expect(ids(reads.legacy.results)).toEqual([who.S3, who.S2, who.S1]);
    expect(reads.count).toBe(3);
    expect(reads.listedCount).toBe(3);
    for (const person of [who.L1, who.L2]) {
      const answer = await sandbox.get(`/v1/candidates/${person}`);
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
    }
    expect(await sandbox.ok('/v1/candidates?email=l1%40example.com')).toEqual({ data: [], meta: { nextCursor: null } });
    expect(ids(await sandbox.all(`/v1/candidates?assessment=${A.id}&limit=1`))).toEqual([who.S3, who.S2, who.S1]);
    expect(sorted(ids(await sandbox.all(`/v1/results?assessment=${A.id}&order=desc&limit=1`)))).toEqual(sorted(resultIdsOf('S1', 'S2')));
    expect(ids((await sandbox.ok('/v1/results?unlocked_since=2000-01-01')).data)).toEqual([results[who.S1]![0]]);
    expect(ids((await sandbox.ok('/v1/candidates?updated_since=2000-01-01')).data)).toEqual([who.S3, who.S2, who.S1]);
    expect(ids((await sandbox.ok('/api/candidates?per_page=100')).results)).toEqual([who.S3, who.S2, who.S1]);
  });

  it('a live key never sees test candidates', async () => {
    const reads = await readsOf(live);
    expect(reads.candidates).toEqual([who.L2, who.L1]);
    expect(sorted(reads.results)).toEqual(sorted(resultIdsOf('L1', 'L2')));
    expect(reads.completions).toEqual([`${who.L1}:${A.id}`]);
    expect(reads.legacy.count).toBe(2);
    expect(ids(reads.legacy.results)).toEqual([who.L2, who.L1]);
    expect(reads.count).toBe(2);
    expect(reads.listedCount).toBe(2);
    for (const person of [who.S1, who.S2, who.S3]) expect((await live.get(`/v1/candidates/${person}`)).status).toBe(404);
    expect((await live.ok('/v1/candidates?email=S1%40example.com')).data).toEqual([]);
    expect(ids((await live.ok('/v1/results?unlocked_since=2000-01-01')).data)).toEqual([results[who.L1]![0]]);
  });

  it('test candidates follow the same lock rule', async () => {
    const s1 = (await sandbox.ok(`/v1/candidates/${who.S1}`)).data;
    expect(s1.assessments[0]).toMatchObject({ status: 'completed', unlocked: false });
    expect(s1.assessments[0].results.map((r: any) => [r.unlocked, r.scorePercentage, r.questionsTotal])).toEqual([[true, 50, 12], [false, null, null]]);
    const s2 = (await sandbox.ok(`/v1/candidates/${who.S2}`)).data;
    expect(s2.assessments[0]).toMatchObject({ status: 'in_progress', completedAt: null, unlocked: false });
  });

  it('addresses belong to one mode: a test candidate cannot sign up through the public link, nor be invited live', async () => {
    const signUp = await world.internal.register({ inviteUrl: A.inviteUrl, email: 's2@example.com' });
    expect({ status: signUp.status, code: signUp.body.error?.code }).toEqual({ status: 409, code: 'sandbox_candidate' });
    expect(await world.invite(live, A.id, { email: 's3@example.com' })).toMatchObject({ status: 'failed', reason: 'sandbox_candidate' });
    expect(await world.invite(sandbox, A.id, { email: 'l2@example.com' })).toMatchObject({ status: 'failed', reason: 'live_candidate' });
    expect((await sandbox.ok('/v1/candidates?limit=100')).data).toHaveLength(3);
    expect((await live.ok('/v1/candidates?limit=100')).data).toHaveLength(2);
  });
});

describe('deleting a test candidate', () => {
  let remainingBefore: number;
  let s1Before: any;

  beforeAll(async () => {
    remainingBefore = (await sandbox.ok('/v1/me')).data.sandbox.remaining;
    s1Before = (await sandbox.ok(`/v1/candidates/${who.S1}`)).data;
    expect(s1Invitation).toMatch(/^http/);
  });

  it('refuses to delete a live candidate, which stays', async () => {
    const refused = await world.internal.call('DELETE', `/internal/candidates/${who.L1}`);
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 409, code: 'not_a_test_candidate' });
    expect((await live.get(`/v1/candidates/${who.L1}`)).status).toBe(200);
  });

  it('removes them from every read', async () => {
    const deleted = await world.internal.call('DELETE', `/internal/candidates/${who.S1}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await sandbox.get(`/v1/candidates/${who.S1}`);
    expect({ status: gone.status, body: gone.body }).toEqual({ status: 404, body: { error: { code: 'not_found', message: expect.any(String) } } });
    const reads = await readsOf(sandbox);
    expect(reads.candidates).toEqual([who.S3, who.S2]);
    expect(sorted(reads.results)).toEqual(sorted(resultIdsOf('S2')));
    expect(reads.completions).toEqual([]);
    expect(reads.legacy.count).toBe(2);
    expect(ids(reads.legacy.results)).toEqual([who.S3, who.S2]);
    expect(reads.count).toBe(2);
    expect(reads.listedCount).toBe(2);
    expect((await sandbox.ok('/v1/candidates?email=s1%40example.com')).data).toEqual([]);
    expect(ids((await sandbox.ok('/v1/candidates?updated_since=2000-01-01')).data)).toEqual([who.S3, who.S2]);
    expect((await sandbox.ok('/v1/results?unlocked_since=2000-01-01')).data).toEqual([]);
    expect((await sandbox.ok(`/v1/results?since=${enc(s1Before.assessments[0].results[0].completedAt)}&limit=100`)).data.map((r: any) => r.candidate.id)).not.toContain(who.S1);
    expect((await sandbox.ok(`/v1/completions?assessment=${A.id}`)).data).toEqual([]);
    // The live side did not change.
    expect((await readsOf(live)).candidates).toEqual([who.L2, who.L1]);
    expect((await live.ok(`/v1/assessments/${A.id}`)).data.candidateCount).toBe(2);
    // Deleting again: they no longer exist.
    expect((await world.internal.call('DELETE', `/internal/candidates/${who.S1}`)).status).toBe(404);
    // The internal app cannot act on them any more.
    expect((await world.internal.unlock(results[who.S1]![1]!)).status).toBe(404);
  });

  it('their invitation links answer 404', async () => {
    const viaLink = await world.internal.register({ invitationUrl: s1Invitation });
    expect({ status: viaLink.status, code: viaLink.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
    expect((await sandbox.get(`/v1/candidates/${who.S1}`)).status).toBe(404);
    // Their unused invitation to another assessment went with them: its link leads nowhere, and the
    // address can be invited there again.
    const elsewhere = await world.internal.register({ invitationUrl: s1PendingElsewhere.invitationUrl });
    expect({ status: elsewhere.status, code: elsewhere.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
    const again = await world.invite(sandbox, s1PendingElsewhere.assessmentId, { email: 's1@example.com', firstName: 'Test', surname: 'One' });
    expect(again).toMatchObject({ status: 'invited', reason: null });
    expect(again.invitationUrl).not.toBe(s1PendingElsewhere.invitationUrl);
  });

  it('the address can be invited again, as a new person, using a new sandbox place', async () => {
    const entry = await world.invite(sandbox, A.id, { email: 'S1@example.com', firstName: 'Test', surname: 'Again' });
    expect(entry).toMatchObject({ email: 's1@example.com', status: 'invited', reason: null, candidateId: null });
    expect(entry.invitationUrl).not.toBe(s1Invitation);
    expect((await sandbox.ok('/v1/me')).data.sandbox.remaining).toBe(remainingBefore - 2); // one place for the re-invitation on the second assessment, one for this one
    const registered = expectStatus(await world.internal.register({ invitationUrl: entry.invitationUrl }), 201, 'register again');
    const newId: string = registered.body.data.candidateId;
    expect(newId).not.toBe(who.S1);
    const fresh = (await sandbox.ok(`/v1/candidates/${newId}`)).data;
    expect(fresh).toEqual({
      id: newId, email: 's1@example.com', firstName: 'Test', surname: 'Again', createdAt: fresh.createdAt, updatedAt: fresh.createdAt,
      reportUrl: world.reportUrl(newId),
      assessments: [{ id: A.id, name: 'Shared assessment', status: 'not_started', completedAt: null, unlocked: false, results: [] }],
    });
    expect(fresh.createdAt > s1Before.createdAt).toBe(true);
    expect((await sandbox.get(`/v1/candidates/${who.S1}`)).status).toBe(404);
    expect(ids((await sandbox.ok('/v1/candidates?email=s1%40example.com')).data)).toEqual([newId]);
    const reads = await readsOf(sandbox);
    expect(reads.candidates).toEqual([newId, who.S3, who.S2]);
    expect(sorted(reads.results)).toEqual(sorted(resultIdsOf('S2')));
    expect(reads.completions).toEqual([]);
    expect(reads.count).toBe(3);
    // The old link still leads nowhere; the new person finishes like anyone else.
    expect((await world.internal.register({ invitationUrl: s1Invitation })).status).toBe(404);
    const done = await world.complete(newId, A.id, FIRST);
    expect(sorted(ids(await sandbox.all('/v1/results?limit=100')))).toEqual(sorted([...resultIdsOf('S2'), done.resultId]));
  });
});
