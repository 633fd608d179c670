import { Map as ImmutableMap, List } from 'immutable';
import type { WorkspaceEvent } from '../events.js';
import type { Mode, WebhookEventName } from '../shared/types.js';

export interface WebhookState {
  url: string;
  events: WebhookEventName[];
  encryptedSecret: string;
  previousEncryptedSecret: string | null;
  rotatedAt: string | null;
  enabled: boolean;
  disabledReason: 'gone' | 'failing' | null;
  /** When the settings were last saved (which also re-enables the address). */
  configuredAt: string;
}

export interface CustomTest {
  slug: string;
  name: string;
  minutes: number;
  questionCount: number;
}

export interface SandboxUse {
  readonly usedAt: string;
  readonly count: number;
}

/**
 * A value, as AssessmentState: evolving it never changes it. Its tables are persistent (immutable's
 * Map and List): copying a record per counted candidate cost O(n²) (~1 s for 3,000 of them).
 */
export type WorkspaceState =
  | { readonly status: 'none' }
  | {
      readonly status: 'active';
      readonly id: string;
      readonly name: string;
      readonly verified: boolean;
      readonly freeAllowance: number;
      /** By API key id. */
      readonly apiKeys: ImmutableMap<string, { readonly mode: Mode; readonly key: string }>;
      readonly webhook: WebhookState | null;
      /** By slug. */
      readonly customTests: ImmutableMap<string, CustomTest>;
      /** Every use of sandbox places, oldest first. */
      readonly sandboxUsage: List<SandboxUse>;
      /** Live candidates whose first unlock was counted (free or charged), by candidate id: each is counted once. */
      readonly countedCandidates: ImmutableMap<string, 'free' | 'charged'>;
      readonly freeUsed: number;
    };

export type ActiveWorkspace = Extract<WorkspaceState, { status: 'active' }>;

export const initialWorkspaceState = (): WorkspaceState => ({ status: 'none' });

export const evolveWorkspace = (state: WorkspaceState, event: WorkspaceEvent): WorkspaceState => {
  if (event.type === 'WorkspaceCreated') {
    const { workspaceId, name, freeAllowance } = event.data;
    return {
      status: 'active', id: workspaceId, name, verified: false, freeAllowance, apiKeys: ImmutableMap(), webhook: null,
      customTests: ImmutableMap(), sandboxUsage: List(), countedCandidates: ImmutableMap(), freeUsed: 0,
    };
  }
  if (state.status !== 'active') return state;
  switch (event.type) {
    case 'WorkspaceVerified':
      return { ...state, verified: true };
    case 'ApiKeyIssued':
    case 'ApiKeyRegenerated':
      return { ...state, apiKeys: state.apiKeys.set(event.data.apiKeyId, { mode: event.data.mode, key: event.data.key }) };
    case 'WebhookConfigured': {
      const { url, events, encryptedSecret, configuredAt } = event.data;
      const previous = state.webhook;
      return {
        ...state,
        webhook: {
          url, events, encryptedSecret, enabled: true, disabledReason: null, configuredAt,
          previousEncryptedSecret: previous?.previousEncryptedSecret ?? null, rotatedAt: previous?.rotatedAt ?? null,
        },
      };
    }
    case 'WebhookSecretRotated':
      return state.webhook
        ? { ...state, webhook: { ...state.webhook, encryptedSecret: event.data.encryptedSecret, previousEncryptedSecret: event.data.previousEncryptedSecret, rotatedAt: event.data.rotatedAt } }
        : state;
    case 'WebhookDisabled':
      return state.webhook ? { ...state, webhook: { ...state.webhook, enabled: false, disabledReason: event.data.reason } } : state;
    case 'CustomTestCreated': {
      const { slug, name, minutes, questionCount } = event.data;
      return { ...state, customTests: state.customTests.set(slug, { slug, name, minutes, questionCount }) };
    }
    case 'SandboxPlacesUsed':
      return { ...state, sandboxUsage: state.sandboxUsage.push({ usedAt: event.data.usedAt, count: event.data.places }) };
    case 'FreeAllowanceUsed':
      return { ...state, freeUsed: state.freeUsed + 1, countedCandidates: state.countedCandidates.set(event.data.candidateId, 'free') };
    case 'CandidateCharged':
      return { ...state, countedCandidates: state.countedCandidates.set(event.data.candidateId, 'charged') };
    default:
      return state;
  }
};
