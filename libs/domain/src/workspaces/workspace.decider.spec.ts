import type { WorkspaceEvent } from '../events.js';
import type { WebhookEventName } from '../shared/types.js';
import { DAY_MS, NOW, WORKSPACE_ID, at, existing, given, refused, workspaceCreated } from '../testing/decider-fixtures.js';
import { type WorkspaceCommand, decideBilling, sandboxPlacesLeft, workspaceDecider } from './workspace.decider.js';

const metadata = { now: NOW };
const created = workspaceCreated();
const verified: WorkspaceEvent = { type: 'WorkspaceVerified', data: { workspaceId: WORKSPACE_ID, verifiedAt: at(-DAY_MS) } };
const liveKey: WorkspaceEvent = {
  type: 'ApiKeyIssued',
  data: { workspaceId: WORKSPACE_ID, apiKeyId: 'key-1', mode: 'live', key: 'LIVE1', secretHash: 'hash-1', issuedAt: at(-DAY_MS) },
};
const sandboxKey: WorkspaceEvent = {
  type: 'ApiKeyIssued',
  data: { workspaceId: WORKSPACE_ID, apiKeyId: 'key-2', mode: 'sandbox', key: 'SBX2', secretHash: 'hash-2', issuedAt: at(-DAY_MS) },
};
const webhookSaved: WorkspaceEvent = {
  type: 'WebhookConfigured',
  data: { workspaceId: WORKSPACE_ID, url: 'https://hooks.example.com/a', events: ['testCompleted'], encryptedSecret: 'sealed-1', configuredAt: at(-DAY_MS) },
};
const webhookDisabled: WorkspaceEvent = {
  type: 'WebhookDisabled', data: { workspaceId: WORKSPACE_ID, url: 'https://hooks.example.com/a', reason: 'gone', disabledAt: at(-3_600_000) },
};
const secretRotated: WorkspaceEvent = {
  type: 'WebhookSecretRotated', data: { workspaceId: WORKSPACE_ID, encryptedSecret: 'sealed-2', previousEncryptedSecret: 'sealed-1', rotatedAt: at(-3_600_000) },
};

// Payloads as the edge's DTOs type them; their rules are specified with the DTOs (apps/simulator/src/workspaces/workspaces.dto.unit.spec.ts).
const createWorkspace = (name: string, freeAllowance: number): WorkspaceCommand =>
  ({ type: 'CreateWorkspace', workspaceId: WORKSPACE_ID, name, freeAllowance, metadata });
const configureWebhook = (url: string, events: WebhookEventName[] = ['testCompleted']): WorkspaceCommand =>
  ({ type: 'ConfigureWebhook', url, events, newEncryptedSecret: 'sealed-new', metadata });

describe('workspace decider', () => {
  describe('CreateWorkspace', () => {
    it('creates the workspace with no free allowance', () => {
      expect(given(workspaceDecider, []).when(createWorkspace('Acme', 0))).toEqual({
        events: [{ type: 'WorkspaceCreated', data: { workspaceId: WORKSPACE_ID, name: 'Acme', freeAllowance: 0, createdAt: NOW } }],
      });
    });

    it('keeps the free allowance it is given', () => {
      expect(given(workspaceDecider, []).when(createWorkspace('Acme', 3))).toEqual({
        events: [{ type: 'WorkspaceCreated', data: { workspaceId: WORKSPACE_ID, name: 'Acme', freeAllowance: 3, createdAt: NOW } }],
      });
    });

    it('refuses to create a workspace twice', () => {
      expect(given(workspaceDecider, [created]).when(createWorkspace('Acme', 0))).toEqual(refused('conflict'));
    });
  });

  describe('VerifyWorkspace', () => {
    it('verifies the workspace once', () => {
      const decision = given(workspaceDecider, [created]).when({ type: 'VerifyWorkspace', metadata });
      expect(decision).toEqual({ events: [{ type: 'WorkspaceVerified', data: { workspaceId: WORKSPACE_ID, verifiedAt: NOW } }] });
      expect(given(workspaceDecider, [created, verified]).state).toMatchObject({ verified: true });
    });

    it('changes nothing when already verified', () => {
      expect(given(workspaceDecider, [created, verified]).when({ type: 'VerifyWorkspace', metadata })).toEqual({ events: [] });
    });

    it('answers not_found for a workspace that does not exist', () => {
      expect(given(workspaceDecider, []).when({ type: 'VerifyWorkspace', metadata })).toEqual(refused('not_found'));
    });
  });

  describe('API keys', () => {
    it.each(['live', 'sandbox'] as const)('issues a %s key', (mode) => {
      const decision = given(workspaceDecider, [created]).when({ type: 'IssueApiKey', apiKeyId: 'key-9', mode, key: 'K', secretHash: 'h', metadata });
      expect(decision).toEqual({
        events: [{ type: 'ApiKeyIssued', data: { workspaceId: WORKSPACE_ID, apiKeyId: 'key-9', mode, key: 'K', secretHash: 'h', issuedAt: NOW } }],
      });
    });

    it('answers not_found when issuing a key of a workspace that does not exist', () => {
      const decision = given(workspaceDecider, []).when({ type: 'IssueApiKey', apiKeyId: 'key-9', mode: 'live', key: 'K', secretHash: 'h', metadata });
      expect(decision).toEqual(refused('not_found'));
    });

    it('regenerates a key in its own mode, naming the key it replaces', () => {
      const decision = given(workspaceDecider, [created, liveKey, sandboxKey])
        .when({ type: 'RegenerateApiKey', apiKeyId: 'key-2', key: 'SBX3', secretHash: 'hash-3', metadata });
      expect(decision).toEqual({
        events: [{
          type: 'ApiKeyRegenerated',
          data: { workspaceId: WORKSPACE_ID, apiKeyId: 'key-2', mode: 'sandbox', previousKey: 'SBX2', key: 'SBX3', secretHash: 'hash-3', regeneratedAt: NOW },
        }],
      });
    });

    it('names the latest key as the previous one on a second regeneration', () => {
      const regenerated: WorkspaceEvent = {
        type: 'ApiKeyRegenerated',
        data: { workspaceId: WORKSPACE_ID, apiKeyId: 'key-1', mode: 'live', previousKey: 'LIVE1', key: 'LIVE2', secretHash: 'hash-x', regeneratedAt: at(-60_000) },
      };
      const decision = given(workspaceDecider, [created, liveKey, regenerated])
        .when({ type: 'RegenerateApiKey', apiKeyId: 'key-1', key: 'LIVE3', secretHash: 'hash-y', metadata });
      expect(decision).toMatchObject({ events: [{ type: 'ApiKeyRegenerated', data: { previousKey: 'LIVE2', key: 'LIVE3', mode: 'live' } }] });
    });

    it('answers not_found for an unknown key', () => {
      const decision = given(workspaceDecider, [created, liveKey]).when({ type: 'RegenerateApiKey', apiKeyId: 'key-404', key: 'K', secretHash: 'h', metadata });
      expect(decision).toEqual(refused('not_found'));
    });
  });

  describe('ConfigureWebhook', () => {
    it('saves the address with a new secret the first time', () => {
      expect(given(workspaceDecider, [created]).when(configureWebhook('https://hooks.example.com/a'))).toEqual({
        events: [{
          type: 'WebhookConfigured',
          data: { workspaceId: WORKSPACE_ID, url: 'https://hooks.example.com/a', events: ['testCompleted'], encryptedSecret: 'sealed-new', configuredAt: NOW },
        }],
      });
    });

    it('keeps the existing secret when saved again', () => {
      const decision = given(workspaceDecider, [created, webhookSaved]).when(configureWebhook('https://hooks.example.com/b', ['resultUnlocked']));
      expect(decision).toEqual({
        events: [{
          type: 'WebhookConfigured',
          data: { workspaceId: WORKSPACE_ID, url: 'https://hooks.example.com/b', events: ['resultUnlocked'], encryptedSecret: 'sealed-1', configuredAt: NOW },
        }],
      });
    });

    it('keeps the rotated secret, and the previous one for the overlap, when saved after a rotation', () => {
      const { when } = given(workspaceDecider, [created, webhookSaved, secretRotated]);
      const decision = when(configureWebhook('https://hooks.example.com/a'));
      expect(decision).toMatchObject({ events: [{ type: 'WebhookConfigured', data: { encryptedSecret: 'sealed-2' } }] });
      const events = 'events' in decision ? decision.events : [];
      const webhook = existing(given(workspaceDecider, [created, webhookSaved, secretRotated, ...events]).state).webhook;
      expect(webhook).toMatchObject({ encryptedSecret: 'sealed-2', previousEncryptedSecret: 'sealed-1', rotatedAt: at(-3_600_000) });
    });

    it('enables a disabled address again when saved', () => {
      const before = existing(given(workspaceDecider, [created, webhookSaved, webhookDisabled]).state);
      expect(before.webhook).toMatchObject({ enabled: false, disabledReason: 'gone' });
      const decision = given(workspaceDecider, [created, webhookSaved, webhookDisabled]).when(configureWebhook('https://hooks.example.com/a'));
      const events = 'events' in decision ? decision.events : [];
      expect(events).toHaveLength(1);
      const after = existing(given(workspaceDecider, [created, webhookSaved, webhookDisabled, ...events]).state);
      expect(after.webhook).toEqual({
        url: 'https://hooks.example.com/a', events: ['testCompleted'], encryptedSecret: 'sealed-1',
        previousEncryptedSecret: null, rotatedAt: null, enabled: true, disabledReason: null, configuredAt: '2026-10-20T10:00:00.000Z',
      });
    });

    it('stores the events as given, all six included', () => {
      const all: WebhookEventName[] = ['candidateCreated', 'candidateInvited', 'assessmentStarted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked'];
      expect(given(workspaceDecider, [created]).when(configureWebhook('https://hooks.example.com/a', all))).toMatchObject({ events: [{ data: { events: all } }] });
    });

    it('answers not_found for a workspace that does not exist', () => {
      expect(given(workspaceDecider, []).when(configureWebhook('https://hooks.example.com/a'))).toEqual(refused('not_found'));
    });
  });

  describe('RotateWebhookSecret', () => {
    it('replaces the secret and keeps the previous one', () => {
      const decision = given(workspaceDecider, [created, webhookSaved]).when({ type: 'RotateWebhookSecret', newEncryptedSecret: 'sealed-2', metadata });
      expect(decision).toEqual({
        events: [{ type: 'WebhookSecretRotated', data: { workspaceId: WORKSPACE_ID, encryptedSecret: 'sealed-2', previousEncryptedSecret: 'sealed-1', rotatedAt: NOW } }],
      });
    });

    it('answers not_found when no webhook is saved', () => {
      expect(given(workspaceDecider, [created]).when({ type: 'RotateWebhookSecret', newEncryptedSecret: 'sealed-2', metadata })).toEqual(refused('not_found'));
    });
  });

  describe('DisableWebhook', () => {
    it('disables the saved address with the reason', () => {
      const decision = given(workspaceDecider, [created, webhookSaved]).when({ type: 'DisableWebhook', url: 'https://hooks.example.com/a', reason: 'failing', metadata });
      expect(decision).toEqual({
        events: [{ type: 'WebhookDisabled', data: { workspaceId: WORKSPACE_ID, url: 'https://hooks.example.com/a', reason: 'failing', disabledAt: NOW } }],
      });
    });

    it('ignores a failure of an address that was replaced meanwhile', () => {
      const decision = given(workspaceDecider, [created, webhookSaved]).when({ type: 'DisableWebhook', url: 'https://old.example.com/a', reason: 'gone', metadata });
      expect(decision).toEqual({ events: [] });
    });

    it('changes nothing when already disabled or never saved', () => {
      const disable: WorkspaceCommand = { type: 'DisableWebhook', url: 'https://hooks.example.com/a', reason: 'gone', metadata };
      expect(given(workspaceDecider, [created, webhookSaved, webhookDisabled]).when(disable)).toEqual({ events: [] });
      expect(given(workspaceDecider, [created]).when(disable)).toEqual({ events: [] });
    });
  });

  describe('CreateCustomTest', () => {
    it('creates a custom test', () => {
      const decision = given(workspaceDecider, [created])
        .when({ type: 'CreateCustomTest', slug: 'custom-1', name: 'Our quiz', minutes: 15, questionCount: 10, metadata });
      expect(decision).toEqual({
        events: [{ type: 'CustomTestCreated', data: { workspaceId: WORKSPACE_ID, slug: 'custom-1', name: 'Our quiz', minutes: 15, questionCount: 10, createdAt: NOW } }],
      });
    });
  });
});

describe('sandbox allowance', () => {
  const placesUsed = (count: number, usedAt: string): WorkspaceEvent =>
    ({ type: 'SandboxPlacesUsed', data: { workspaceId: WORKSPACE_ID, assessmentId: 'as-1', places: count, usedAt } });
  const placesLeft = (events: WorkspaceEvent[], now = NOW): number => sandboxPlacesLeft(existing(given(workspaceDecider, [created, ...events]).state), now);

  it('starts with 25 places', () => {
    expect(placesLeft([])).toBe(25);
  });

  it('counts every place used in the last 30 days', () => {
    expect(placesLeft([placesUsed(10, at(-29 * DAY_MS)), placesUsed(3, at(-DAY_MS)), placesUsed(2, NOW)])).toBe(10);
  });

  it('gives places back once their use is more than 30 days old', () => {
    const events = [placesUsed(20, at(-31 * DAY_MS)), placesUsed(5, at(-2 * DAY_MS))];
    expect(placesLeft(events)).toBe(20);
    // A use made at t holds its places during [t, t + 30 days).
    expect(placesLeft([placesUsed(20, at(-DAY_MS))], at(29 * DAY_MS - 1))).toBe(5);
    expect(placesLeft([placesUsed(20, at(-DAY_MS))], at(29 * DAY_MS))).toBe(25);
  });

  it('has no places left once 25 were used, and never goes below zero', () => {
    expect(placesLeft([placesUsed(25, at(-DAY_MS))])).toBe(0);
    expect(placesLeft([placesUsed(20, at(-DAY_MS)), placesUsed(10, NOW)])).toBe(0);
  });
});

describe('billing', () => {
  const workspace = (freeAllowance: number, events: WorkspaceEvent[] = []) =>
    existing(given(workspaceDecider, [workspaceCreated({ freeAllowance }), ...events]).state);
  const freeUsed = (candidateId: string): WorkspaceEvent =>
    ({ type: 'FreeAllowanceUsed', data: { workspaceId: WORKSPACE_ID, candidateId, resultId: `r-${candidateId}`, usedAt: at(-DAY_MS) } });
  const charged = (candidateId: string): WorkspaceEvent =>
    ({ type: 'CandidateCharged', data: { workspaceId: WORKSPACE_ID, candidateId, resultId: `r-${candidateId}`, chargedAt: at(-DAY_MS) } });
  const unlock = (candidateId: string, mode: 'live' | 'sandbox' = 'live') => ({ candidateId, resultId: 'r-new', mode, now: NOW });

  it('uses the free allowance for the first live candidates', () => {
    expect(decideBilling(workspace(2), unlock('c-1'))).toEqual([
      { type: 'FreeAllowanceUsed', data: { workspaceId: WORKSPACE_ID, candidateId: 'c-1', resultId: 'r-new', usedAt: NOW } },
    ]);
    expect(decideBilling(workspace(2, [freeUsed('c-1')]), unlock('c-2'))).toMatchObject([{ type: 'FreeAllowanceUsed', data: { candidateId: 'c-2' } }]);
  });

  it('charges every live candidate after the free allowance', () => {
    expect(decideBilling(workspace(2, [freeUsed('c-1'), freeUsed('c-2')]), unlock('c-3'))).toEqual([
      { type: 'CandidateCharged', data: { workspaceId: WORKSPACE_ID, candidateId: 'c-3', resultId: 'r-new', chargedAt: NOW } },
    ]);
    expect(decideBilling(workspace(0), unlock('c-1'))).toMatchObject([{ type: 'CandidateCharged' }]);
  });

  it('counts a candidate once however many results are unlocked', () => {
    expect(decideBilling(workspace(1, [freeUsed('c-1')]), unlock('c-1'))).toEqual([]);
    expect(decideBilling(workspace(0, [charged('c-1')]), unlock('c-1'))).toEqual([]);
  });

  it('never bills a test candidate nor counts them toward the free allowance', () => {
    expect(decideBilling(workspace(0), unlock('c-1', 'sandbox'))).toEqual([]);
    expect(decideBilling(workspace(1), unlock('c-1', 'sandbox'))).toEqual([]);
  });
});
