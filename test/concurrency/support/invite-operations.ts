import { type Actor, noteOutcome, publicCall } from './actor.js';
import { tokenOf } from './knowledge.js';
import type { Answer } from './recorder.js';
import { type AssessmentWorld, type Mode, type WorkspaceWorld, invitable } from './world.js';

/** Whole-request refusals an invitation can meet in this workload (API 4.3 and product decisions). */
const INVITE_REFUSALS = ['409:idempotency_key_reused', '409:idempotency_request_in_progress', '422:assessment_closed', '422:sandbox_limit'];

type InvitationBody = { candidates: { email: string; firstName: string; surname: string }[] };

export const otherMode = (mode: Mode): Mode => (mode === 'live' ? 'sandbox' : 'live');

/** Mostly an assessment still open; now and then a closed one (422 assessment_closed). */
export const pickAssessment = (actor: Actor, workspace: WorkspaceWorld, openOnly = false): AssessmentWorld => {
  const open = workspace.assessments.filter((assessment) => !assessment.closed);
  const pool = open.length > 0 && (openOnly || actor.random.chance(0.92)) ? open : workspace.assessments;
  return actor.random.pick(pool) ?? (workspace.assessments[0] as AssessmentWorld);
};

/** One to three addresses of the workspace's pool, some written with capitals and spaces around (the API trims and lower-cases). */
const freshBody = (actor: Actor, workspace: WorkspaceWorld, addresses?: string[]): InvitationBody => ({
  candidates: (addresses ?? actor.random.sample(invitable(workspace), actor.random.int(1, 3))).map((email) => ({
    email: actor.random.chance(0.1) ? ` ${email.toUpperCase()} ` : email,
    ...actor.knowledge.person(actor.world.tag),
  })),
});

/** Sends one invitation request, records it, and learns the links it hands out. */
export const sendInvitation = async (
  actor: Actor, op: string, workspace: WorkspaceWorld, mode: Mode, assessmentId: string, body: InvitationBody, key: string | null,
): Promise<Answer> => {
  const startedAt = Date.now();
  const path = `/v1/assessments/${assessmentId}/invitations`;
  const answer = await publicCall(actor, op, workspace, mode, 'POST', path, {
    body, headers: key === null ? {} : { 'idempotency-key': key }, refusals: INVITE_REFUSALS,
  });
  noteOutcome(actor, answer);
  const replayed = answer.headers.get('idempotent-replayed') === 'true';
  if (key !== null) {
    actor.knowledge.idempotent.push({
      workspaceId: workspace.id, key, mode, path, body, addresses: body.candidates.map(({ email }) => email.trim().toLowerCase()),
      startedAt, finishedAt: Date.now(), status: answer.status, replayed, answer: answer.body,
      ...(answer.lostAttempts === undefined ? {} : { lostAttempts: answer.lostAttempts }),
    });
  }
  if (answer.status === 0 || answer.status >= 500 || (answer.lostAttempts ?? 0) > 0) {
    for (const { email, firstName, surname } of body.candidates) {
      const slot = `${assessmentId} ${email.trim().toLowerCase()}`;
      actor.knowledge.unconfirmedPeople.set(slot, [...(actor.knowledge.unconfirmedPeople.get(slot) ?? []), { firstName, surname }]);
    }
  }
  if (answer.status === 200) learn(actor, workspace, mode, assessmentId, body, answer);
  return answer;
};

const learn = (actor: Actor, workspace: WorkspaceWorld, mode: Mode, assessmentId: string, body: InvitationBody, answer: Answer): void => {
  const entries = answer.body.data as { email: string; firstName: string; surname: string; status: string; reason: string | null; invitationUrl: string | null }[];
  const counts = { invited: 0, already_invited: 0, failed: 0 } as Record<string, number>;
  entries.forEach((entry, index) => {
    counts[entry.status] = (counts[entry.status] ?? 0) + 1;
    const sent = body.candidates[index]?.email.trim().toLowerCase();
    actor.findings.expect(entry.email === sent, 'invitation entries answer the address as used', () => `sent ${sent}, answered ${entry.email}`);
    if (entry.invitationUrl === null) return;
    const invited = entry.status === 'invited';
    actor.knowledge.rememberLink({
      token: tokenOf(entry.invitationUrl), url: entry.invitationUrl, workspaceId: workspace.id, assessmentId, email: entry.email,
      mode: invited ? mode : null, person: invited ? { firstName: entry.firstName, surname: entry.surname } : null,
    });
    if (invited) actor.knowledge.acknowledged.push({ kind: 'invited', workspaceId: workspace.id, assessmentId, token: tokenOf(entry.invitationUrl) });
  });
  const { meta } = answer.body;
  actor.findings.expect(
    meta.invited === counts.invited && meta.alreadyInvited === counts.already_invited && meta.failed === counts.failed && meta.assessmentId === assessmentId,
    'invitation meta counts its entries', () => `meta ${JSON.stringify(meta)} for entries ${JSON.stringify(counts)}`,
  );
};

/** Overlapping addresses from every client, a third of them with a shared Idempotency-Key (replays, reuse with another body, another mode). */
export const invite = async (actor: Actor): Promise<void> => {
  const { random, knowledge } = actor;
  const workspace = random.pick(actor.world.workspaces) as WorkspaceWorld;
  const mode: Mode = random.chance(0.6) ? 'live' : 'sandbox';
  const assessment = pickAssessment(actor, workspace);
  if (!random.chance(0.3)) {
    await sendInvitation(actor, `invite.${mode}`, workspace, mode, assessment.id, freshBody(actor, workspace), null);
    return;
  }
  const key = random.pick(workspace.idempotencyKeys) ?? '';
  const first = knowledge.firstBodies.get(`${workspace.id}:${key}`);
  const retired = (first?.body.candidates ?? []).some((entry) => workspace.retired.has(String((entry as { email: string }).email).trim().toLowerCase()));
  if (first !== undefined && !retired && random.chance(0.75)) {
    // Same key, same body: a replay, unless the key is used from the other mode (409 idempotency_key_reused).
    const replayMode = random.chance(0.93) ? first.mode : otherMode(first.mode);
    await sendInvitation(actor, 'invite.replay', workspace, replayMode, first.assessmentId, first.body as InvitationBody, key);
    return;
  }
  const body = freshBody(actor, workspace);
  if (first === undefined) knowledge.firstBodies.set(`${workspace.id}:${key}`, { mode, assessmentId: assessment.id, body });
  await sendInvitation(actor, first === undefined ? 'invite.keyed' : 'invite.key-other-body', workspace, mode, assessment.id, body, key);
};

/** Four to six requests inviting one address to one assessment at once, from both modes and both API processes. */
export const inviteBurst = async (actor: Actor): Promise<void> => {
  const { random } = actor;
  const workspace = random.pick(actor.world.workspaces) as WorkspaceWorld;
  const assessment = pickAssessment(actor, workspace, true);
  const address = random.pick(invitable(workspace));
  if (address === undefined) return;
  await Promise.all(Array.from({ length: random.int(4, 6) }, () => {
    const mode: Mode = random.chance(0.6) ? 'live' : 'sandbox';
    return sendInvitation(actor, 'invite.burst', workspace, mode, assessment.id, freshBody(actor, workspace, [address]), null);
  }));
};

/** Three or four requests with one new Idempotency-Key and one body at once: one original, the rest replays or 409 in progress. */
export const idempotentBurst = async (actor: Actor): Promise<void> => {
  const { random, knowledge } = actor;
  const workspace = random.pick(actor.world.workspaces) as WorkspaceWorld;
  const mode: Mode = random.chance(0.6) ? 'live' : 'sandbox';
  const assessment = pickAssessment(actor, workspace, true);
  const key = `cc-${actor.world.tag}-burst-${actor.client}-${random.int(0, 1e9)}`;
  const body = freshBody(actor, workspace);
  knowledge.firstBodies.set(`${workspace.id}:${key}`, { mode, assessmentId: assessment.id, body });
  await Promise.all(Array.from({ length: random.int(3, 4) }, () =>
    sendInvitation(actor, 'invite.idempotent-burst', workspace, mode, assessment.id, body, key)));
};
