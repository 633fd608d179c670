import { apiKeysProjection } from './api-keys/api-keys.projection.js';
import { countApiKeys, listApiKeysOfWorkspace } from './api-keys/api-keys.queries.js';
import { assessmentsProjection } from './assessments/assessments.projection.js';
import { countAssessments } from './assessments/assessments.queries.js';
import { candidatesProjection } from './candidates/candidates.projection.js';
import { listCandidatesOfAssessment } from './candidates/candidates.queries.js';
import { invitationsProjection } from './invitations/invitations.projection.js';
import { listPendingInvitationsOfAssessment } from './invitations/invitations.queries.js';
import {
  assessment, assessmentCreated, at, candidate, candidateCreated, event, registered, workspaceCreated,
} from './test-support/domain-fixtures.js';
import { createHarness, type Harness } from './test-support/harness.js';
import { workspacesProjection } from './workspaces/workspaces.projection.js';
import { listWorkspaces } from './workspaces/workspaces.queries.js';

/** The lists the internal application's pages read (PostgreSQL): every workspace, keys, an assessment's people. */
describe('internal application lists (PostgreSQL)', () => {
  let harness: Harness;
  const a1 = assessment('w1', 'a1');
  const ann = candidate('w1', 'c-ann', 'live', 'ann@example.com');
  const bob = candidate('w1', 'c-bob', 'sandbox', 'bob@example.com');
  const issued = (apiKeyId: string, workspaceId: string, mode: 'live' | 'sandbox', minute: number) =>
    event('ApiKeyIssued', { workspaceId, apiKeyId, mode, key: `key-${apiKeyId}`, secretHash: 'hash', issuedAt: at(minute) });
  const invited = (email: string, invitationId: string, minute: number) => event('CandidateInvited', {
    assessmentId: 'a1', workspaceId: 'w1', assessmentName: a1.name, deadline: null, invitationId, invitationToken: `tok-${invitationId}`,
    mode: 'live', email, firstName: '', surname: '', invitedAt: at(minute),
  });

  beforeAll(async () => {
    harness = await createHarness('rm_internal_lists', [workspacesProjection, apiKeysProjection, assessmentsProjection, candidatesProjection, invitationsProjection]);
    await harness.append([
      workspaceCreated('w1', at(0)), workspaceCreated('w2', at(1)), workspaceCreated('w3', at(1)),
      issued('k2', 'w1', 'sandbox', 3), issued('k1', 'w1', 'live', 2), issued('k3', 'w2', 'live', 4),
      assessmentCreated(a1, at(5)), assessmentCreated(assessment('w2', 'a2'), at(5)),
      invited('ann@example.com', 'i1', 6), invited('cid@example.com', 'i2', 7),
      candidateCreated(ann, at(8)), ...registered(ann, a1, at(8)),
      candidateCreated(bob, at(9)), ...registered(bob, a1, at(9)),
    ]);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('lists every workspace newest first, a page at a time', async () => {
    const first = await listWorkspaces(harness.documentStore, { limit: 2 });
    expect(first.items.map((workspace) => workspace.id)).toEqual(['w3', 'w2']);
    expect(first.next).toEqual([at(1), 'w2']);
    const second = await listWorkspaces(harness.documentStore, { limit: 2, after: first.next as string[] });
    expect(second.items.map((workspace) => workspace.id)).toEqual(['w1']);
    expect(second.next).toBeNull();
  });

  it('lists and counts the keys and assessments of one workspace', async () => {
    expect((await listApiKeysOfWorkspace(harness.documentStore, 'w1')).map((key) => [key.id, key.mode])).toEqual([['k1', 'live'], ['k2', 'sandbox']]);
    expect(await countApiKeys(harness.documentStore, 'w1')).toBe(2);
    expect(await countApiKeys(harness.documentStore, 'w3')).toBe(0);
    expect(await countAssessments(harness.documentStore, 'w1')).toBe(1);
    expect(await countAssessments(harness.documentStore, 'w3')).toBe(0);
  });

  it('lists the candidates of an assessment of both modes, and the invitations still waiting with their token', async () => {
    expect((await listCandidatesOfAssessment(harness.documentStore, 'a1', 10)).map((doc) => doc.id)).toEqual(['c-bob', 'c-ann']);
    expect(await listCandidatesOfAssessment(harness.documentStore, 'a2', 10)).toEqual([]);
    // Ann registered, so only the invitation of cid@ is still waiting.
    expect(await listPendingInvitationsOfAssessment(harness.documentStore, 'a1', 10)).toEqual([
      { id: 'a1:cid@example.com', workspaceId: 'w1', assessmentId: 'a1', email: 'cid@example.com', mode: 'live', invitationId: 'i2', invitationToken: 'tok-i2', invitedAt: at(7) },
    ]);
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all('invitations');
    await harness.project({ startAfter: null });
    expect(await harness.all('invitations')).toEqual(before);
  });
});
