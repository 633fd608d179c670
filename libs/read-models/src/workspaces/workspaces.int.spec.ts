import { at, event, workspaceCreated } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { workspacesProjection } from './workspaces.projection.js';
import { getWorkspace, sandboxAllowance } from './workspaces.queries.js';

describe('workspaces read model (PostgreSQL)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness('rm_workspaces', [workspacesProjection]);
    await harness.append([
      workspaceCreated('w1', at(0), 4),
      workspaceCreated('w2', at(0)),
      event('WorkspaceVerified', { workspaceId: 'w1', verifiedAt: at(1) }),
      event('WebhookConfigured', { workspaceId: 'w1', url: 'https://hooks.example.com/w1', events: ['resultUnlocked'], encryptedSecret: 'enc', configuredAt: at(2) }),
      event('SandboxPlacesUsed', { workspaceId: 'w1', assessmentId: 'a1', places: 3, usedAt: at(3) }),
      event('SandboxPlacesUsed', { workspaceId: 'w1', assessmentId: 'a1', places: 2, usedAt: at(4) }),
    ]);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('reads a workspace with its webhook and sandbox allowance', async () => {
    const w1 = await getWorkspace(harness.documentStore, 'w1');
    expect(w1).toMatchObject({ id: 'w1', verified: true, freeAllowance: 4, webhook: { url: 'https://hooks.example.com/w1', enabled: true } });
    if (w1 === null) throw new Error('workspace expected');
    expect(sandboxAllowance(w1, new Date(at(5)))).toEqual({ limit: 25, windowDays: 30, remaining: 20 });
    expect(await getWorkspace(harness.documentStore, 'w2')).toMatchObject({ verified: false, webhook: null, sandboxUsage: [] });
    expect(await getWorkspace(harness.documentStore, 'nope')).toBeNull();
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all('workspaces');
    await harness.project({ startAfter: null });
    expect(await harness.all('workspaces')).toEqual(before);
  });
});
