import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  ReadsWorld, SLUGS, TIME, expectStatus, lockedResult, unlockedResult, type Scores, type Workspace,
} from './support/reads-world.js';

/**
 * The whole candidate life cycle over HTTP, read back after every step through GET /v1/candidates/{id},
 * GET /v1/candidates, GET /v1/results, GET /v1/completions and the internal billing view.
 */
jest.setTimeout(60_000);

let world: ReadsWorld;
let ws: Workspace;
let other: Workspace;
let assessment: { id: string; name: string; inviteUrl: string };
let second: { id: string; name: string };
const [FIRST, SECOND] = [SLUGS[0], SLUGS[1]];
const NAMES: Record<string, string> = { 'numerical-reasoning': 'Numerical Reasoning', 'verbal-reasoning': 'Verbal Reasoning' };

const alice = { email: 'alice@example.com', firstName: 'Alice', surname: 'Archer' };
const aliceScores: Scores = { scorePercentage: 81.5, speedCompleted: 420, questionsAnswered: 18, questionsCorrect: 15, questionsIncorrect: 3, questionsTotal: 18, result: 'above average', scores: { numeracy: 4 } };
const aliceScores2: Scores = { scorePercentage: 64, speedCompleted: 1100, questionsAnswered: 24, questionsCorrect: 16, questionsIncorrect: 8, questionsTotal: 24 };

// Filled in by the life-cycle test, used by the later ones.
const state: { aliceId?: string; r1?: string; r2?: string } = {};

beforeAll(async () => {
  world = await ReadsWorld.start({ SIMULATED_CLOCK: 'true' });
  ws = await world.workspace({ name: 'Lifecycle Ltd', freeAllowance: 1 });
  other = await world.workspace({ name: 'Other Employer', keys: 1 });
  assessment = await world.assessment(ws.live, '  Backend engineer  ', [FIRST, SECOND]);
  second = await world.assessment(ws.live, 'Data analyst', [FIRST]);
});

afterAll(async () => {
  await world?.stop();
});

const candidateOf = async (id: string) => (await ws.live.ok(`/v1/candidates/${id}`)).data;
const assessmentOf = async (id: string, mode: 'live' | 'sandbox' = 'live') => (await (mode === 'live' ? ws.live : ws.sandbox).ok(`/v1/assessments/${id}`)).data;

describe('candidate life cycle', () => {
  it('reads every step: invite, register, start, finish each test, unlock, billing', async () => {
    expect(assessment.name).toBe('Backend engineer');
    // Invited, not registered: not a candidate yet.
    const entry = await world.invite(ws.live, assessment.id, { email: '  Alice@Example.COM ', firstName: 'Alice', surname: 'Archer' });
    expect(entry).toMatchObject({ email: 'alice@example.com', status: 'invited', reason: null, candidateId: null });
    expect((await ws.live.ok('/v1/candidates')).data).toEqual([]);
    expect((await ws.live.ok(`/v1/candidates?email=alice%40example.com`)).data).toEqual([]);
    expect((await assessmentOf(assessment.id)).candidateCount).toBe(0);

    // Registration through the personal invitation link.
    const before = await world.advance(3600);
    const registered = expectStatus(await world.internal.register({ invitationUrl: entry.invitationUrl }), 201, 'register');
    const aliceId: string = registered.body.data.candidateId;
    state.aliceId = aliceId;
    expect(registered.body.data).toEqual({ candidateId: aliceId, assessmentId: assessment.id });
    const afterRegistration = await candidateOf(aliceId);
    expect(afterRegistration.createdAt).toMatch(TIME);
    expect(afterRegistration.createdAt >= before).toBe(true);
    expect(afterRegistration).toEqual({
      id: aliceId, ...alice, createdAt: afterRegistration.createdAt, updatedAt: afterRegistration.createdAt, reportUrl: world.reportUrl(aliceId),
      assessments: [{ id: assessment.id, name: 'Backend engineer', status: 'not_started', completedAt: null, unlocked: false, results: [] }],
    });
    expect((await assessmentOf(assessment.id)).candidateCount).toBe(1);
    // The list row has exactly the shape of the single candidate.
    expect((await ws.live.ok('/v1/candidates')).data).toEqual([afterRegistration]);

    // Registering again changes nothing.
    await world.advance(60);
    const again = expectStatus(await world.internal.register({ invitationUrl: entry.invitationUrl }), 200, 'register again');
    expect(again.body.data).toEqual({ candidateId: aliceId, assessmentId: assessment.id });
    expect(await candidateOf(aliceId)).toEqual(afterRegistration);

    // Start.
    await world.advance(3600);
    expectStatus(await world.internal.start(aliceId, assessment.id), 200, 'start');
    const afterStart = await candidateOf(aliceId);
    expect(afterStart.updatedAt).toMatch(TIME);
    expect(afterStart.updatedAt > afterRegistration.updatedAt).toBe(true);
    expect(afterStart).toEqual({
      ...afterRegistration, updatedAt: afterStart.updatedAt,
      assessments: [{ id: assessment.id, name: 'Backend engineer', status: 'in_progress', completedAt: null, unlocked: false, results: [] }],
    });
    expect((await ws.live.ok('/v1/results')).data).toEqual([]);

    // First test finished: a locked result, still in progress, not a completion.
    await world.advance(3600);
    const first = await world.complete(aliceId, assessment.id, FIRST, aliceScores);
    expect(first.assessmentCompleted).toBe(false);
    state.r1 = first.resultId;
    const afterFirst = await candidateOf(aliceId);
    const r1 = afterFirst.assessments[0].results[0];
    expect(r1.completedAt).toMatch(TIME);
    expect(r1.completedAt > afterStart.updatedAt).toBe(true);
    const r1Locked = lockedResult({ id: first.resultId, testSlug: FIRST, testName: NAMES[FIRST]!, completedAt: r1.completedAt });
    expect(afterFirst).toEqual({
      ...afterRegistration, updatedAt: r1.completedAt,
      assessments: [{ id: assessment.id, name: 'Backend engineer', status: 'in_progress', completedAt: null, unlocked: false, results: [r1Locked] }],
    });
    const aliceRef = { id: aliceId, ...alice };
    const assessmentRef = { id: assessment.id, name: 'Backend engineer' };
    expect(await ws.live.ok('/v1/results')).toEqual({
      data: [{ ...r1Locked, candidate: aliceRef, assessment: assessmentRef, reportUrl: world.reportUrl(aliceId) }],
      meta: { nextCursor: null },
    });
    expect((await ws.live.ok('/v1/completions')).data).toEqual([]);

    // A test finished twice is refused and changes nothing.
    expectStatus(await world.internal.complete(aliceId, assessment.id, FIRST), 409, 'complete twice');
    expect(await candidateOf(aliceId)).toEqual(afterFirst);

    // Last test finished: completed, completedAt = the last test's time, listed in completions.
    await world.advance(3600);
    const last = await world.complete(aliceId, assessment.id, SECOND, aliceScores2);
    expect(last.assessmentCompleted).toBe(true);
    state.r2 = last.resultId;
    const afterLast = await candidateOf(aliceId);
    const r2At: string = afterLast.assessments[0].results[1].completedAt;
    expect(r2At > r1.completedAt).toBe(true);
    const r2Locked = lockedResult({ id: last.resultId, testSlug: SECOND, testName: NAMES[SECOND]!, completedAt: r2At });
    expect(afterLast).toEqual({
      ...afterRegistration, updatedAt: r2At,
      assessments: [{ id: assessment.id, name: 'Backend engineer', status: 'completed', completedAt: r2At, unlocked: false, results: [r1Locked, r2Locked] }],
    });
    const completion = {
      id: `${aliceId}:${assessment.id}`, candidate: aliceRef, assessment: assessmentRef, completedAt: r2At, updatedAt: r2At, unlocked: false,
      results: [r1Locked, r2Locked], reportUrl: world.reportUrl(aliceId),
    };
    expect(await ws.live.ok('/v1/completions')).toEqual({ data: [completion] });
    expect((await ws.live.ok('/v1/results')).data).toEqual([
      { ...r1Locked, candidate: aliceRef, assessment: assessmentRef, reportUrl: world.reportUrl(aliceId) },
      { ...r2Locked, candidate: aliceRef, assessment: assessmentRef, reportUrl: world.reportUrl(aliceId) },
    ]);

    // First unlock: scores of that result only; the assessment is not unlocked until every result is.
    await world.advance(3600);
    const unlock1 = await world.unlock(first.resultId);
    expect(unlock1).toEqual({ resultId: first.resultId, unlockedAt: unlock1.unlockedAt, charged: false }); // uses the free allowance of 1
    expect(unlock1.unlockedAt).toMatch(TIME);
    expect(unlock1.unlockedAt > r2At).toBe(true);
    const r1Open = unlockedResult({ id: first.resultId, testSlug: FIRST, testName: NAMES[FIRST]!, completedAt: r1.completedAt }, unlock1.unlockedAt, aliceScores);
    const afterUnlock1 = await candidateOf(aliceId);
    expect(afterUnlock1).toEqual({
      ...afterRegistration, updatedAt: unlock1.unlockedAt,
      assessments: [{ id: assessment.id, name: 'Backend engineer', status: 'completed', completedAt: r2At, unlocked: false, results: [r1Open, r2Locked] }],
    });
    // An unlock moves the completion's updatedAt, never its completedAt (API 1.2.0).
    expect((await ws.live.ok('/v1/completions')).data).toEqual([{ ...completion, updatedAt: unlock1.unlockedAt, unlocked: false, results: [r1Open, r2Locked] }]);
    expect(await world.call('GET', `/internal/workspaces/${ws.id}/billing`)).toEqual({ data: { freeAllowance: 1, billedCandidates: [] } });

    // Second unlock: everything readable, assessment unlocked; still not billed (same candidate, free place).
    await world.advance(3600);
    const unlock2 = await world.unlock(last.resultId);
    expect(unlock2.charged).toBe(false);
    const r2Open = unlockedResult({ id: last.resultId, testSlug: SECOND, testName: NAMES[SECOND]!, completedAt: r2At }, unlock2.unlockedAt, aliceScores2);
    const afterUnlock2 = await candidateOf(aliceId);
    expect(afterUnlock2).toEqual({
      ...afterRegistration, updatedAt: unlock2.unlockedAt,
      assessments: [{ id: assessment.id, name: 'Backend engineer', status: 'completed', completedAt: r2At, unlocked: true, results: [r1Open, r2Open] }],
    });
    expect(await ws.live.ok('/v1/completions')).toEqual({ data: [{ ...completion, updatedAt: unlock2.unlockedAt, unlocked: true, results: [r1Open, r2Open] }] });
    expect((await ws.live.ok('/v1/results')).data).toEqual([
      { ...r1Open, candidate: aliceRef, assessment: assessmentRef, reportUrl: world.reportUrl(aliceId) },
      { ...r2Open, candidate: aliceRef, assessment: assessmentRef, reportUrl: world.reportUrl(aliceId) },
    ]);

    // A second unlock of the same result: same time, no charge, nothing changes.
    await world.advance(60);
    expect(await world.unlock(first.resultId)).toEqual({ resultId: first.resultId, unlockedAt: unlock1.unlockedAt, charged: false });
    expect(await candidateOf(aliceId)).toEqual(afterUnlock2);
    expect(await world.call('GET', `/internal/workspaces/${ws.id}/billing`)).toEqual({ data: { freeAllowance: 1, billedCandidates: [] } });
  });

  it('registers through the public inviteUrl as a live candidate and bills them once, at their first unlock after the free allowance', async () => {
    expect(state.aliceId).toMatch(/^cand_[A-Za-z0-9]{16}$/);
    await world.advance(3600);
    const registered = expectStatus(
      await world.internal.register({ inviteUrl: assessment.inviteUrl, email: ' Bob@Example.COM', firstName: 'Bob', surname: 'Baker' }), 201, 'sign up',
    );
    const bobId: string = registered.body.data.candidateId;
    expect(registered.body.data).toEqual({ candidateId: bobId, assessmentId: assessment.id });
    const bob = await candidateOf(bobId);
    expect(bob).toEqual({
      id: bobId, email: 'bob@example.com', firstName: 'Bob', surname: 'Baker', createdAt: bob.createdAt, updatedAt: bob.createdAt,
      reportUrl: world.reportUrl(bobId),
      assessments: [{ id: assessment.id, name: 'Backend engineer', status: 'not_started', completedAt: null, unlocked: false, results: [] }],
    });
    // A live candidate: the live key sees Bob, the sandbox key does not.
    expect((await ws.sandbox.get(`/v1/candidates/${bobId}`)).status).toBe(404);
    expect((await assessmentOf(assessment.id)).candidateCount).toBe(2);
    // Signing up again with the same address answers the same candidate.
    const again = expectStatus(await world.internal.register({ inviteUrl: assessment.inviteUrl, email: 'bob@example.com' }), 200, 'sign up again');
    expect(again.body.data).toEqual({ candidateId: bobId, assessmentId: assessment.id });

    // A finished test alone moves the candidate to in_progress (no explicit start).
    await world.advance(3600);
    const b1 = await world.complete(bobId, assessment.id, FIRST);
    expect((await candidateOf(bobId)).assessments[0]).toMatchObject({ status: 'in_progress', completedAt: null, unlocked: false });
    await world.advance(3600);
    const b2 = await world.complete(bobId, assessment.id, SECOND);
    expect(b2.assessmentCompleted).toBe(true);

    // Bob is the second live candidate unlocked; the free allowance (1) is used by Alice: billed now.
    await world.advance(3600);
    const charge = await world.unlock(b2.resultId);
    expect(charge.charged).toBe(true);
    expect(await world.call('GET', `/internal/workspaces/${ws.id}/billing`)).toEqual({
      data: { freeAllowance: 1, billedCandidates: [{ candidateId: bobId, resultId: b2.resultId, chargedAt: charge.unlockedAt }] },
    });
    const halfOpen = await candidateOf(bobId);
    expect(halfOpen.updatedAt).toBe(charge.unlockedAt);
    expect(halfOpen.assessments[0].unlocked).toBe(false);
    expect(halfOpen.assessments[0].results.map((r: any) => [r.id, r.unlocked, r.scorePercentage])).toEqual([[b1.resultId, false, null], [b2.resultId, true, 50]]);

    // His other result: not billed again.
    await world.advance(3600);
    expect((await world.unlock(b1.resultId)).charged).toBe(false);
    expect((await candidateOf(bobId)).assessments[0].unlocked).toBe(true);
    expect((await world.call('GET', `/internal/workspaces/${ws.id}/billing`)).data.billedCandidates).toEqual([
      { candidateId: bobId, resultId: b2.resultId, chargedAt: charge.unlockedAt },
    ]);

    // Completions newest first: Bob, then Alice.
    expect((await ws.live.ok('/v1/completions')).data.map((c: any) => c.id)).toEqual([`${bobId}:${assessment.id}`, `${state.aliceId}:${assessment.id}`]);
  });

  it('never bills a test candidate, nor lets them use the free allowance', async () => {
    await world.advance(3600);
    const samId = await world.candidate(ws.sandbox, assessment.id, { email: 'sam@example.com', firstName: 'Sam', surname: 'Sandbox' });
    await world.start(samId, assessment.id);
    const s1 = await world.complete(samId, assessment.id, FIRST);
    const s2 = await world.complete(samId, assessment.id, SECOND);
    expect((await world.unlock(s1.resultId)).charged).toBe(false);
    expect((await world.unlock(s2.resultId)).charged).toBe(false);
    const sam = (await ws.sandbox.ok(`/v1/candidates/${samId}`)).data;
    expect(sam.assessments[0]).toMatchObject({ status: 'completed', unlocked: true });
    expect((await world.call('GET', `/internal/workspaces/${ws.id}/billing`)).data.billedCandidates.map((b: any) => b.candidateId)).not.toContain(samId);
    expect((await world.call('GET', `/internal/workspaces/${ws.id}/billing`)).data.billedCandidates).toHaveLength(1);
    // candidateCount follows the mode of the reading key.
    expect((await assessmentOf(assessment.id, 'live')).candidateCount).toBe(2);
    expect((await assessmentOf(assessment.id, 'sandbox')).candidateCount).toBe(1);

    // In a fresh workspace with one free place, test candidates unlocked first leave the place to the first live candidate.
    const fresh = await world.workspace({ name: 'Fresh', freeAllowance: 1, keys: 1 });
    const job = await world.assessment(fresh.live, 'Job', [FIRST]);
    const other2 = await world.assessment(fresh.live, 'Other job', [FIRST]);
    const billing = async () => (await world.call('GET', `/internal/workspaces/${fresh.id}/billing`)).data;
    for (const email of ['t1@example.com', 't2@example.com']) {
      const tester = await world.candidate(fresh.sandbox, job.id, { email });
      expect((await world.unlock((await world.complete(tester, job.id, FIRST)).resultId)).charged).toBe(false);
    }
    expect(await billing()).toEqual({ freeAllowance: 1, billedCandidates: [] });
    const firstLive = await world.candidate(fresh.live, job.id, { email: 'first@example.com' });
    expect((await world.unlock((await world.complete(firstLive, job.id, FIRST)).resultId)).charged).toBe(false);
    expect(await billing()).toEqual({ freeAllowance: 1, billedCandidates: [] });
    const secondLive = await world.candidate(fresh.live, job.id, { email: 'second@example.com' });
    const billed = await world.unlock((await world.complete(secondLive, job.id, FIRST)).resultId);
    expect(billed.charged).toBe(true);
    // The same person on another assessment of the workspace is not billed again.
    expect(await world.candidate(fresh.live, other2.id, { email: 'second@example.com' })).toBe(secondLive);
    const again = await world.complete(secondLive, other2.id, FIRST);
    expect((await world.unlock(again.resultId)).charged).toBe(false);
    expect(await billing()).toEqual({ freeAllowance: 1, billedCandidates: [{ candidateId: secondLive, resultId: billed.resultId, chargedAt: billed.unlockedAt }] });
  });

  it('reads a consistent candidate when tests are finished and unlocked at the same moment', async () => {
    const three = await world.assessment(ws.live, 'Triple', [...SLUGS]);
    const carol = await world.candidate(ws.live, three.id, { email: 'carol@example.com', firstName: 'Carol', surname: 'Concurrent' });
    const finished = await Promise.all(SLUGS.map((slug) => world.complete(carol, three.id, slug)));
    expect(finished.filter((f) => f.assessmentCompleted)).toHaveLength(1);
    const done = (await candidateOf(carol)).assessments[0];
    const times = done.results.map((r: any) => r.completedAt).sort();
    expect(done).toMatchObject({ status: 'completed', completedAt: times[2], unlocked: false });
    expect(done.results.map((r: any) => r.id).sort()).toEqual(finished.map((f) => f.resultId).sort());
    const unlocks = await Promise.all(finished.map((f) => world.unlock(f.resultId)));
    expect(unlocks.filter((u) => u.charged)).toHaveLength(1);
    const open = await candidateOf(carol);
    expect(open.assessments[0].unlocked).toBe(true);
    expect(open.updatedAt).toBe(unlocks.map((u) => u.unlockedAt).sort()[2]);
    const completions = (await ws.live.ok(`/v1/completions?assessment=${three.id}`)).data;
    expect(completions).toHaveLength(1);
    expect(completions[0]).toMatchObject({ id: `${carol}:${three.id}`, completedAt: times[2], unlocked: true });
    expect((await world.call('GET', `/internal/workspaces/${ws.id}/billing`)).data.billedCandidates.filter((b: any) => b.candidateId === carol)).toHaveLength(1);
  });

  it('shows each assessment of the candidate with its own progress, and only the workspace\'s own assessments', async () => {
    const aliceId = state.aliceId!;
    // Alice also applies to another employer, with the same address: a different person record there.
    const foreign = await world.assessment(other.live, 'Other job', [FIRST]);
    const foreignId = await world.candidate(other.live, foreign.id, { email: 'alice@example.com', firstName: 'Alice', surname: 'Archer' });
    expect(foreignId).not.toBe(aliceId);
    await world.complete(foreignId, foreign.id, FIRST);

    // And is invited to a second assessment of the first workspace.
    await world.advance(3600);
    const before = await candidateOf(aliceId);
    const entry = await world.invite(ws.live, second.id, alice);
    expect(entry.status).toBe('invited');
    const registered = expectStatus(await world.internal.register({ invitationUrl: entry.invitationUrl }), 201, 'register on second');
    expect(registered.body.data).toEqual({ candidateId: aliceId, assessmentId: second.id });
    const after = await candidateOf(aliceId);
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect(after.createdAt).toBe(before.createdAt);
    const byId = (list: any[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(byId(after.assessments)).toEqual(byId([
      ...before.assessments,
      { id: second.id, name: 'Data analyst', status: 'not_started', completedAt: null, unlocked: false, results: [] },
    ]));
    expect(after.assessments.map((a: any) => a.id)).not.toContain(foreign.id);

    // Reads are limited to the key's workspace.
    expect((await other.live.ok(`/v1/candidates/${foreignId}`)).data.assessments.map((a: any) => a.id)).toEqual([foreign.id]);
    const notFound = await ws.live.get(`/v1/candidates/${foreignId}`);
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('not_found');
    expect((await other.live.get(`/v1/candidates/${aliceId}`)).status).toBe(404);
    expect((await ws.live.get(`/v1/candidates?assessment=${foreign.id}`)).body.error?.code).toBe('not_found');
    expect((await ws.live.ok('/v1/results')).data.map((r: any) => r.assessment.id)).not.toContain(foreign.id);
    expect((await other.live.ok('/v1/results')).data.map((r: any) => r.candidate.id)).toEqual([foreignId]);
    expect((await ws.live.ok(`/v1/candidates?email=ALICE%40example.com`)).data.map((c: any) => c.id)).toEqual([aliceId]);
  });
});
