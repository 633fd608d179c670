import { type Actor, expectNothingErased, publicCall } from './actor.js';
import type { Mode, WorkspaceWorld } from './world.js';

/** The reads an integration makes while the world moves: lists with filters and cursors, single items. */
export const read = async (actor: Actor): Promise<void> => {
  const { random } = actor;
  const workspace = random.pick(actor.world.workspaces) as WorkspaceWorld;
  const mode: Mode = random.chance(0.6) ? 'live' : 'sandbox';
  const kind = random.weighted({ candidates: 3, candidate: 3, results: 2, assessment: 2 });
  if (kind === 'candidate') {
    const candidate = random.pick(actor.knowledge.candidatesOf(workspace.id));
    if (candidate === undefined) return;
    const answer = await publicCall(actor, 'read.candidate', workspace, candidate.mode ?? mode, 'GET', `/v1/candidates/${candidate.id}`, { refusals: ['404:not_found'] });
    expectNothingErased(actor, 'read.candidate', answer);
    if (answer.status === 200) {
      actor.findings.expect(answer.body.data.email === candidate.email, 'a candidate reads with their own address', () =>
        `GET /v1/candidates/${candidate.id} answered ${answer.body.data.email}, registered as ${candidate.email}`);
    }
    return;
  }
  if (kind === 'assessment') {
    const assessment = random.pick(workspace.assessments);
    if (assessment !== undefined) await publicCall(actor, 'read.assessment', workspace, mode, 'GET', `/v1/assessments/${assessment.id}`);
    return;
  }
  const filters = new URLSearchParams({ limit: String(random.pick([5, 20, 100])) });
  if (kind === 'candidates' && random.chance(0.4)) filters.set('assessment', random.pick(workspace.assessments)?.id ?? '');
  if (kind === 'candidates' && random.chance(0.2)) filters.set('email', random.pick(workspace.addresses) ?? '');
  if (kind === 'results' && random.chance(0.3)) filters.set('order', 'desc');
  let cursor: string | null = null;
  for (let page = 0; page < 3; page += 1) {
    if (cursor !== null) filters.set('cursor', cursor);
    const answer = await publicCall(actor, `read.${kind}`, workspace, mode, 'GET', `/v1/${kind}?${filters}`);
    expectNothingErased(actor, `read.${kind}`, answer);
    cursor = answer.status === 200 ? (answer.body.meta?.nextCursor ?? null) : null;
    if (cursor === null) return;
  }
};
