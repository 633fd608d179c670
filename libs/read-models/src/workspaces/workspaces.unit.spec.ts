import type { DomainEvent } from '#domain';
import { at, event, workspaceCreated } from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { workspacesProjection, type WorkspaceDocument } from './workspaces.projection.js';
import { sandboxRemaining } from './workspaces.queries.js';

const W = 'w1';
const workspace = (...events: DomainEvent[]) => project<WorkspaceDocument>(workspacesProjection, events, W);
const webhook = event('WebhookConfigured', { workspaceId: W, url: 'https://hooks.example.com/a', events: ['testCompleted'], encryptedSecret: 's1', configuredAt: at(1) });

describe('workspaces projection', () => {
  it('creates the workspace unverified, with no webhook', () => {
    expect(workspace(workspaceCreated(W, at(0), 3))).toEqual({
      id: W, name: 'Workspace w1', verified: false, freeAllowance: 3, createdAt: at(0), customTests: [], sandboxUsage: [], webhook: null,
    });
  });

  it('verifies and lists custom tests', () => {
    const doc = workspace(
      workspaceCreated(W, at(0)),
      event('WorkspaceVerified', { workspaceId: W, verifiedAt: at(1) }),
      event('CustomTestCreated', { workspaceId: W, slug: 'custom-1', name: 'Ours', minutes: 20, questionCount: 10, createdAt: at(2) }),
    );
    expect(doc?.verified).toBe(true);
    expect(doc?.customTests).toEqual([{ slug: 'custom-1', name: 'Ours', minutes: 20, questionCount: 10 }]);
  });

  it('rotates, disables and re-enables the webhook, keeping the previous secret across a save', () => {
    const rotated = event('WebhookSecretRotated', { workspaceId: W, encryptedSecret: 's2', previousEncryptedSecret: 's1', rotatedAt: at(2) });
    const disabled = event('WebhookDisabled', { workspaceId: W, url: 'https://hooks.example.com/a', reason: 'gone', disabledAt: at(3) });
    expect(workspace(workspaceCreated(W, at(0)), webhook, rotated, disabled)?.webhook).toEqual({
      url: 'https://hooks.example.com/a', events: ['testCompleted'], encryptedSecret: 's2', previousEncryptedSecret: 's1', rotatedAt: at(2),
      enabled: false, disabledReason: 'gone',
    });
    const savedAgain = event('WebhookConfigured', { workspaceId: W, url: 'https://hooks.example.com/a', events: ['testCompleted'], encryptedSecret: 's2', configuredAt: at(4) });
    expect(workspace(workspaceCreated(W, at(0)), webhook, rotated, disabled, savedAgain)?.webhook).toMatchObject({
      enabled: true, disabledReason: null, encryptedSecret: 's2', previousEncryptedSecret: 's1', rotatedAt: at(2),
    });
  });

  it('ignores a disabling decided for an address since replaced', () => {
    const moved = event('WebhookConfigured', { workspaceId: W, url: 'https://hooks.example.com/b', events: ['testCompleted'], encryptedSecret: 's1', configuredAt: at(2) });
    const lateDisable = event('WebhookDisabled', { workspaceId: W, url: 'https://hooks.example.com/a', reason: 'failing', disabledAt: at(3) });
    expect(workspace(workspaceCreated(W, at(0)), webhook, moved, lateDisable)?.webhook?.enabled).toBe(true);
  });

  it('counts sandbox places in a rolling 30-day window and never below zero', () => {
    const day = 24 * 60;
    const doc = workspace(
      workspaceCreated(W, at(0)),
      event('SandboxPlacesUsed', { workspaceId: W, assessmentId: 'a1', places: 10, usedAt: at(0) }),
      event('SandboxPlacesUsed', { workspaceId: W, assessmentId: 'a1', places: 5, usedAt: at(10 * day) }),
    );
    if (doc === null) throw new Error('workspace expected');
    expect(sandboxRemaining(doc, new Date(at(10 * day)))).toBe(10);
    expect(sandboxRemaining(doc, new Date(at(30 * day)))).toBe(20);
    expect(sandboxRemaining(doc, new Date(at(41 * day)))).toBe(25);
    const full = workspace(workspaceCreated(W, at(0)), event('SandboxPlacesUsed', { workspaceId: W, assessmentId: 'a1', places: 30, usedAt: at(0) }));
    if (full === null) throw new Error('workspace expected');
    expect(sandboxRemaining(full, new Date(at(1)))).toBe(0);
  });

  it('drops uses that left the window when a new one is recorded', () => {
    const day = 24 * 60;
    const doc = workspace(
      workspaceCreated(W, at(0)),
      event('SandboxPlacesUsed', { workspaceId: W, assessmentId: 'a1', places: 1, usedAt: at(0) }),
      event('SandboxPlacesUsed', { workspaceId: W, assessmentId: 'a1', places: 2, usedAt: at(31 * day) }),
    );
    expect(doc?.sandboxUsage).toEqual([{ usedAt: at(31 * day), count: 2 }]);
  });
});
