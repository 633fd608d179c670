import type { WorkspaceEvent } from '../events.js';
import type { CommandMetadata, Decider } from '../shared/decider.js';
import { DomainError, UnknownCommand, notFound, validationFailed } from '../shared/errors.js';
import { webhookUrlProblem } from '../shared/network.js';
import { WEBHOOK_EVENT_NAMES, type Mode, type WebhookEventName } from '../shared/types.js';
import { isStorableText, isWholeNumber } from '../shared/validation.js';
import { type ActiveWorkspace, type WorkspaceState, evolveWorkspace, initialWorkspaceState } from './workspace.state.js';

export const SANDBOX_LIMIT = 25;
export const SANDBOX_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

export type WorkspaceCommand = { metadata: CommandMetadata } & (
  | { type: 'CreateWorkspace'; workspaceId: string; name: unknown; freeAllowance: unknown }
  | { type: 'VerifyWorkspace' }
  | { type: 'IssueApiKey'; apiKeyId: string; mode: unknown; key: string; secretHash: string }
  | { type: 'RegenerateApiKey'; apiKeyId: string; key: string; secretHash: string }
  | { type: 'ConfigureWebhook'; url: unknown; events: unknown; allowInsecure: boolean; newEncryptedSecret: string }
  | { type: 'RotateWebhookSecret'; newEncryptedSecret: string }
  | { type: 'DisableWebhook'; url: string; reason: 'gone' | 'failing' }
  | { type: 'CreateCustomTest'; slug: string; name: unknown; minutes: unknown; questionCount: unknown }
);

const requireWorkspace = (state: WorkspaceState): ActiveWorkspace => {
  if (state.status !== 'active') throw notFound('workspace');
  return state;
};

const trimmedName = (value: unknown, max = 200): string => {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length < 1 || name.length > max || !isStorableText(name)) throw validationFailed(`name must be a string of 1 to ${max} characters`);
  return name;
};

const webhookEvents = (value: unknown): WebhookEventName[] => {
  const known: readonly string[] = WEBHOOK_EVENT_NAMES;
  if (!Array.isArray(value) || value.length === 0 || !value.every((name) => typeof name === 'string' && known.includes(name))) {
    throw validationFailed(`events must be a non-empty list of: ${WEBHOOK_EVENT_NAMES.join(', ')}`);
  }
  return WEBHOOK_EVENT_NAMES.filter((name) => value.includes(name));
};

export const decideWorkspace = (command: WorkspaceCommand, state: WorkspaceState): WorkspaceEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'CreateWorkspace': {
      if (state.status !== 'none') throw new DomainError('conflict', 'workspace exists');
      const freeAllowance = command.freeAllowance ?? 0;
      if (!isWholeNumber(freeAllowance, 0, 1_000_000)) throw validationFailed('freeAllowance must be a whole number from 0');
      return [{ type: 'WorkspaceCreated', data: { workspaceId: command.workspaceId, name: trimmedName(command.name), freeAllowance, createdAt: now } }];
    }
    case 'VerifyWorkspace': {
      const workspace = requireWorkspace(state);
      return workspace.verified ? [] : [{ type: 'WorkspaceVerified', data: { workspaceId: workspace.id, verifiedAt: now } }];
    }
    case 'IssueApiKey': {
      const workspace = requireWorkspace(state);
      if (command.mode !== 'live' && command.mode !== 'sandbox') throw validationFailed('mode must be "live" or "sandbox"');
      const mode: Mode = command.mode;
      return [{ type: 'ApiKeyIssued', data: { workspaceId: workspace.id, apiKeyId: command.apiKeyId, mode, key: command.key, secretHash: command.secretHash, issuedAt: now } }];
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
      const problem = webhookUrlProblem(command.url, command.allowInsecure);
      if (problem || typeof command.url !== 'string') throw validationFailed(problem ?? 'url is required');
      const events = webhookEvents(command.events);
      // Saving again keeps the signing secret: integrators must not have to re-deploy it.
      const encryptedSecret = workspace.webhook?.encryptedSecret ?? command.newEncryptedSecret;
      return [{ type: 'WebhookConfigured', data: { workspaceId: workspace.id, url: command.url, events, encryptedSecret, configuredAt: now } }];
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
      const name = trimmedName(command.name);
      if (!isWholeNumber(command.minutes, 1, 600)) throw validationFailed('minutes must be a whole number from 1 to 600');
      if (!isWholeNumber(command.questionCount, 1, 1000)) throw validationFailed('questionCount must be a whole number from 1 to 1000');
      return [{
        type: 'CustomTestCreated',
        data: { workspaceId: workspace.id, slug: command.slug, name, minutes: command.minutes, questionCount: command.questionCount, createdAt: now },
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
