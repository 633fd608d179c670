import { type Actor, expectNothingErased, internalCall, noteOutcome, publicCall, workspaceOf } from './actor.js';
import { pickAssessment, sendInvitation } from './invite-operations.js';
import { type InvitationLink, type KnownCandidate, type KnownResult, tokenOf } from './knowledge.js';
import { createAssessment, isOneShot, type WorkspaceWorld } from './world.js';

const SCORES = { scorePercentage: 75, speedCompleted: 300, questionsAnswered: 10, questionsCorrect: 7, questionsIncorrect: 3, questionsTotal: 10 };

const liveCandidates = (actor: Actor): KnownCandidate[] => [...actor.knowledge.candidates.values()].filter((candidate) => !candidate.deleted);

/** Registers through a personal link, mostly one nobody registered through yet. */
export const register = async (actor: Actor, given?: InvitationLink, op = 'register'): Promise<KnownCandidate | null> => {
  const { random, knowledge } = actor;
  const links = [...knowledge.links.values()];
  const used = new Set([...knowledge.candidates.values()].flatMap((candidate) => [...candidate.links]));
  const fresh = links.filter((link) => !used.has(link.token));
  const link = given ?? random.pick(fresh.length > 0 && random.chance(0.8) ? fresh : links);
  if (link === undefined) return null;
  const answer = await internalCall(actor, op, 'POST', '/internal/registrations', {
    body: { invitationUrl: link.url }, refusals: ['404:not_found', '409:invalid_state', '409:live_candidate', '409:sandbox_candidate'],
  });
  noteOutcome(actor, answer);
  if (answer.status !== 200 && answer.status !== 201) return null;
  const { candidateId, assessmentId } = answer.body.data as { candidateId: string; assessmentId: string };
  actor.findings.expect(assessmentId === link.assessmentId, 'a registration joins the assessment of its link', () => `${link.url} joined ${assessmentId}`);
  knowledge.acknowledged.push({ kind: 'registered', workspaceId: link.workspaceId, candidateId, assessmentId });
  return knowledge.rememberCandidate(candidateId, link);
};

const pickCandidacy = (actor: Actor): { candidate: KnownCandidate; assessmentId: string } | null => {
  const candidate = actor.random.pick(liveCandidates(actor));
  const assessmentId = candidate === undefined ? undefined : actor.random.pick([...candidate.assessments]);
  return candidate === undefined || assessmentId === undefined ? null : { candidate, assessmentId };
};

export const start = async (actor: Actor): Promise<void> => {
  const candidacy = pickCandidacy(actor);
  if (candidacy === null) return;
  const { candidate, assessmentId } = candidacy;
  const answer = await internalCall(actor, 'start', 'POST', `/internal/candidates/${candidate.id}/assessments/${assessmentId}/start`, {
    refusals: ['404:not_found', '409:invalid_state'],
  });
  noteOutcome(actor, answer);
  if (answer.status === 200) actor.knowledge.acknowledged.push({ kind: 'started', workspaceId: candidate.workspaceId, candidateId: candidate.id, assessmentId });
};

/** Finishes one test of the assessment (at random: one already finished answers 409 already_completed). */
const completeOne = async (actor: Actor, candidate: KnownCandidate, assessmentId: string, slug: string, op: string): Promise<KnownResult | null> => {
  const answer = await internalCall(actor, op, 'POST', `/internal/candidates/${candidate.id}/assessments/${assessmentId}/tests/${slug}/complete`, {
    body: { ...SCORES, scorePercentage: actor.random.int(0, 100) }, refusals: ['404:not_found', '409:already_completed', '409:invalid_state'],
  });
  noteOutcome(actor, answer);
  if (answer.status !== 201) return null;
  const { resultId } = answer.body.data as { resultId: string };
  const result = { resultId, candidateId: candidate.id, workspaceId: candidate.workspaceId, assessmentId, slug };
  actor.knowledge.results.set(resultId, result);
  actor.knowledge.acknowledged.push({ kind: 'completed', workspaceId: candidate.workspaceId, candidateId: candidate.id, resultId });
  return result;
};

const testsOf = (actor: Actor, workspaceId: string, assessmentId: string): string[] =>
  workspaceOf(actor, workspaceId)?.assessments.find((assessment) => assessment.id === assessmentId)?.tests ?? [];

export const complete = async (actor: Actor): Promise<void> => {
  const candidacy = pickCandidacy(actor);
  const slug = candidacy === null ? undefined : actor.random.pick(testsOf(actor, candidacy.candidate.workspaceId, candidacy.assessmentId));
  if (candidacy !== null && slug !== undefined) await completeOne(actor, candidacy.candidate, candidacy.assessmentId, slug, 'complete');
};

const unlockOne = async (actor: Actor, result: KnownResult, op: string): Promise<void> => {
  const answer = await internalCall(actor, op, 'POST', `/internal/results/${result.resultId}/unlock`, { refusals: ['404:not_found'] });
  noteOutcome(actor, answer);
  if (answer.status !== 200) return;
  const { unlockedAt, charged } = answer.body.data as { unlockedAt: string; charged: boolean };
  actor.knowledge.acknowledged.push({ kind: 'unlocked', workspaceId: result.workspaceId, candidateId: result.candidateId, resultId: result.resultId, unlockedAt, charged });
};

/** Results of candidates not known to be deleted, mostly: an unlock of a deleted one is a 404 and tests little. */
const resultsToUnlock = (actor: Actor, workspaceId?: string): KnownResult[] => {
  const results = [...actor.knowledge.results.values()].filter((result) => workspaceId === undefined || result.workspaceId === workspaceId);
  const current = results.filter((result) => actor.knowledge.candidates.get(result.candidateId)?.deleted !== true);
  return current.length > 0 && actor.random.chance(0.9) ? current : results;
};

export const unlock = async (actor: Actor): Promise<void> => {
  const result = actor.random.pick(resultsToUnlock(actor));
  if (result !== undefined) await unlockOne(actor, result, 'unlock');
};

/**
 * Many unlocks in one workspace at once, one result per candidate: each first unlock decides on the
 * workspace's billing, so they all contend for its stream. Candidates without a locked result first
 * finish a test they have not finished (at once too). Now and then one result twice.
 */
export const unlockBurst = async (actor: Actor): Promise<void> => {
  const { random, knowledge } = actor;
  const workspace = random.pick(actor.world.workspaces) as WorkspaceWorld;
  const unlocked = new Set(knowledge.acknowledged.flatMap((ack) => (ack.kind === 'unlocked' ? [ack.resultId] : [])));
  const results = [...knowledge.results.values()];
  const candidates = random.sample(liveCandidates(actor).filter((candidate) => candidate.workspaceId === workspace.id), random.int(8, 16));
  const chosen = (await Promise.all(candidates.map(async (candidate) => {
    const mine = results.filter((result) => result.candidateId === candidate.id);
    const locked = mine.find((result) => !unlocked.has(result.resultId));
    if (locked !== undefined) return locked;
    const open = [...candidate.assessments].flatMap((assessmentId) => testsOf(actor, candidate.workspaceId, assessmentId)
      .filter((slug) => !mine.some((result) => result.assessmentId === assessmentId && result.slug === slug)).map((slug) => ({ assessmentId, slug })));
    const next = random.pick(open);
    return next === undefined ? random.pick(mine) ?? null : completeOne(actor, candidate, next.assessmentId, next.slug, 'complete.burst');
  }))).filter((result): result is KnownResult => result !== null);
  if (chosen.length > 1 && random.chance(0.3)) chosen.push(chosen[0] as KnownResult);
  await Promise.all(chosen.map((result) => unlockOne(actor, result, 'unlock.burst')));
};

/**
 * A hiring wave: a score of new people invited to one assessment in one request, all registering,
 * finishing a test and being unlocked at once. Eighteen or more first unlocks in one workspace at once
 * is where conflicts on its billing stream pile up beyond the writer's retries.
 */
export const unlockRush = async (actor: Actor): Promise<void> => {
  const { random, knowledge, world } = actor;
  const workspace = random.pick(world.workspaces) as WorkspaceWorld;
  const assessment = pickAssessment(actor, workspace, true);
  const people = Array.from({ length: random.int(18, 22) }, () => `r${workspace.rushed++}.w${workspace.index}.${world.tag}@example.com`);
  const invited = await sendInvitation(actor, 'rush.invite', workspace, 'live', assessment.id, {
    candidates: people.map((email) => ({ email, ...knowledge.person(world.tag) })),
  }, null);
  if (invited.status !== 200) return;
  const links = (invited.body.data as { invitationUrl: string | null }[]).flatMap(({ invitationUrl }) => {
    const link = invitationUrl === null ? undefined : knowledge.links.get(tokenOf(invitationUrl));
    return link === undefined ? [] : [link];
  });
  const candidates = (await Promise.all(links.map((link) => register(actor, link, 'rush.register')))).filter((candidate) => candidate !== null);
  const slug = assessment.tests[0] ?? '';
  const results = await Promise.all(candidates.map((candidate) => completeOne(actor, candidate, assessment.id, slug, 'rush.complete')));
  await Promise.all(results.filter((result) => result !== null).map((result) => unlockOne(actor, result, 'rush.unlock')));
};

/**
 * Deletes a test candidate (now and then a live one: 409), and mostly invites the same address again
 * at once, through either API process, and registers it as the new person it is, reading it back.
 */
export const deleteCandidate = async (actor: Actor): Promise<void> => {
  const { random, knowledge } = actor;
  const candidates = liveCandidates(actor);
  const sandbox = candidates.filter((candidate) => candidate.mode !== 'live');
  const candidate = random.pick(sandbox.length > 0 && random.chance(0.9) ? sandbox : candidates);
  if (candidate === undefined) return;
  const startedAt = Date.now();
  const answer = await internalCall(actor, 'delete', 'DELETE', `/internal/candidates/${candidate.id}`, { refusals: ['404:not_found', '409:not_a_test_candidate'] });
  noteOutcome(actor, answer);
  knowledge.deletions.push({ candidateId: candidate.id, workspaceId: candidate.workspaceId, email: candidate.email, startedAt, finishedAt: Date.now(), status: answer.status });
  if (answer.status === 409) candidate.mode = 'live';
  if (answer.status === 404) candidate.deleted = true;
  if (answer.status !== 204) return;
  candidate.deleted = true;
  knowledge.acknowledged.push({ kind: 'deleted', workspaceId: candidate.workspaceId, candidateId: candidate.id });
  const workspace = workspaceOf(actor, candidate.workspaceId);
  if (workspace === undefined) return;
  if (isOneShot(workspace, candidate.email)) {
    workspace.retired.add(candidate.email);
    return;
  }
  if (!random.chance(0.7)) return;
  const assessment = pickAssessment(actor, workspace, true);
  const invited = await sendInvitation(actor, 'reinvite', workspace, 'sandbox', assessment.id, {
    candidates: [{ email: candidate.email, ...knowledge.person(actor.world.tag) }],
  }, null);
  const url = invited.status === 200 && invited.body.data[0]?.status === 'invited' ? (invited.body.data[0].invitationUrl as string) : null;
  const link = url === null ? undefined : knowledge.links.get(tokenOf(url));
  if (link === undefined) return;
  const again = await register(actor, link, 'reregister');
  if (again === null) return;
  const read = await publicCall(actor, 'read.reregistered', workspace, 'sandbox', 'GET', `/v1/candidates/${again.id}`, { refusals: ['404:not_found'] });
  expectNothingErased(actor, 'read.reregistered', read);
};

/** Closes an assessment while others keep going, and opens a new one so the workload keeps some open. */
export const close = async (actor: Actor): Promise<void> => {
  const workspace = actor.random.pick(actor.world.workspaces) as WorkspaceWorld;
  const open = workspace.assessments.filter((assessment) => !assessment.closed);
  const assessment = actor.random.pick(open);
  if (assessment === undefined || open.length < 3) return;
  const answer = await internalCall(actor, 'close', 'POST', `/internal/assessments/${assessment.id}/close`);
  noteOutcome(actor, answer);
  if (answer.status !== 200) return;
  assessment.closed = true;
  actor.knowledge.acknowledged.push({ kind: 'closed', workspaceId: workspace.id, assessmentId: assessment.id });
  await createAssessment(actor.deployment, actor.recorder, actor.random, workspace, 'assessment.create', workspace.clientKeys[actor.client]?.live ?? '');
};

/** Soak only: a month of domain time passes, which frees the sandbox allowance's places. */
export const advanceClock = async (actor: Actor): Promise<void> => {
  if (!actor.deployment.simulatedClock) return;
  await internalCall(actor, 'clock', 'POST', '/internal/clock', { body: { advanceSeconds: 31 * 24 * 3600 } });
};
