import type { WorkspaceEvent } from '../events.js';
import type { CommandMetadata, Decider } from '../shared/decider.js';
import { DomainError, UnknownCommand, notFound } from '../shared/errors.js';
import type { Mode, WebhookEventName } from '../shared/types.js';
import { type ActiveWorkspace, type WorkspaceState, evolveWorkspace, initialWorkspaceState } from './workspace.state.js';

export const SANDBOX_LIMIT = 25;
export const SANDBOX_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

// The payloads arrive typed and checked at the edge (the internal application's DTOs): names trimmed,
// numbers within their bounds, the webhook address's shape and its events. The decider decides.
export type WorkspaceCommand = { metadata: CommandMetadata } & (
  | { type: 'CreateWorkspace'; workspaceId: string; name: string; freeAllowance: number }
  | { type: 'VerifyWorkspace' }
  | { type: 'IssueApiKey'; apiKeyId: string; mode: Mode; key: string; secretHash: string }
  | { type: 'RegenerateApiKey'; apiKeyId: string; key: string; secretHash: string }
  | { type: 'ConfigureWebhook'; url: string; events: WebhookEventName[]; newEncryptedSecret: string }
  | { type: 'RotateWebhookSecret'; newEncryptedSecret: string }
  | { type: 'DisableWebhook'; url: string; reason: 'gone' | 'failing' }
  | { type: 'CreateCustomTest'; slug: string; name: string; minutes: number; questionCount: number }
);

const requireWorkspace = (state: WorkspaceState): ActiveWorkspace => {
  if (state.status !== 'active') throw notFound('workspace');
  return state;
};

export const decideWorkspace = (command: WorkspaceCommand, state: WorkspaceState): WorkspaceEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'CreateWorkspace': {
      if (state.status !== 'none') throw new DomainError('conflict', 'workspace exists');
      return [{ type: 'WorkspaceCreated', data: { workspaceId: command.workspaceId, name: command.name, freeAllowance: command.freeAllowance, createdAt: now } }];
    }
    case 'VerifyWorkspace': {
      const workspace = requireWorkspace(state);
      return workspace.verified ? [] : [{ type: 'WorkspaceVerified', data: { workspaceId: workspace.id, verifiedAt: now } }];
    }
    case 'IssueApiKey': {
      const workspace = requireWorkspace(state);
      return [{ type: 'ApiKeyIssued', data: { workspaceId: workspace.id, apiKeyId: command.apiKeyId, mode: command.mode, key: command.key, secretHash: command.secretHash, issuedAt: now } }];
    }
    case 'RegenerateApiKey': {
      const workspace = requireWorkspace(state);
      const existing = workspace.apiKeys.get(command.apiKeyId);
      if (!existing) throw notFound('API key');
      return [{
        type: 'ApiKeyRegenerated',
        data: { workspaceId: workspace.id, apiKeyId: command.apiKeyId, mode: existing.mode, previousKey: existing.key, key: command.key, secretHash: command.secretHash, regeneratedAt: now },
      }];
    }
    case 'ConfigureWebhook': {
      const workspace = requireWorkspace(state);
      // Saving again keeps the signing secret: integrators must not have to re-deploy it.
      const encryptedSecret = workspace.webhook?.encryptedSecret ?? command.newEncryptedSecret;
      return [{ type: 'WebhookConfigured', data: { workspaceId: workspace.id, url: command.url, events: command.events, encryptedSecret, configuredAt: now } }];
    }
    case 'RotateWebhookSecret': {
      const workspace = requireWorkspace(state);
      if (!workspace.webhook) throw notFound('webhook');
      return [{
        type: 'WebhookSecretRotated',
        data: { workspaceId: workspace.id, encryptedSecret: command.newEncryptedSecret, previousEncryptedSecret: workspace.webhook.encryptedSecret, rotatedAt: now },
      }];
    }
    case 'DisableWebhook': {
      const workspace = requireWorkspace(state);
      const webhook = workspace.webhook;
      if (!webhook || !webhook.enabled || webhook.url !== command.url) return [];
      return [{ type: 'WebhookDisabled', data: { workspaceId: workspace.id, url: webhook.url, reason: command.reason, disabledAt: now } }];
    }
    case 'CreateCustomTest': {
      const workspace = requireWorkspace(state);
      return [{
        type: 'CustomTestCreated',
        data: { workspaceId: workspace.id, slug: command.slug, name: command.name, minutes: command.minutes, questionCount: command.questionCount, createdAt: now },
      }];
    }
    default: {
      const unknown: never = command;
      throw new UnknownCommand(unknown);
    }
  }
};

export const workspaceDecider: Decider<WorkspaceCommand, WorkspaceState, WorkspaceEvent> = {
  initialState: initialWorkspaceState,
  evolve: evolveWorkspace,
  decide: decideWorkspace,
};

/** Places left in the rolling 30-day sandbox window at `now`, from the places used so far. */
export const placesLeft = (usage: Iterable<{ readonly usedAt: string; readonly count: number }>, now: string): number => {
  const windowStart = Date.parse(now) - SANDBOX_WINDOW_DAYS * DAY_MS;
  let used = 0;
  for (const use of usage) if (Date.parse(use.usedAt) > windowStart) used += use.count;
  return Math.max(0, SANDBOX_LIMIT - used);
};

export const sandboxPlacesLeft = (workspace: ActiveWorkspace, now: string): number => placesLeft(workspace.sandboxUsage, now);

/**
 * Billing at unlock: a live candidate is counted once, at their first unlock; the first
 * `freeAllowance` counted candidates are free, every later one is charged.
 */
export const decideBilling = (
  workspace: ActiveWorkspace,
  unlock: { candidateId: string; resultId: string; mode: Mode; now: string },
): WorkspaceEvent[] => {
  if (unlock.mode !== 'live' || workspace.countedCandidates.has(unlock.candidateId)) return [];
  const base = { workspaceId: workspace.id, candidateId: unlock.candidateId, resultId: unlock.resultId };
  return workspace.freeUsed < workspace.freeAllowance
    ? [{ type: 'FreeAllowanceUsed', data: { ...base, usedAt: unlock.now } }]
    : [{ type: 'CandidateCharged', data: { ...base, chargedAt: unlock.now } }];
};
