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

export type WorkspaceState =
  | { status: 'none' }
  | {
      status: 'active';
      id: string;
      name: string;
      verified: boolean;
      freeAllowance: number;
      apiKeys: Record<string, { mode: Mode; key: string }>;
      webhook: WebhookState | null;
      customTests: Record<string, CustomTest>;
      sandboxUsage: { usedAt: string; count: number }[];
      /** Live candidates whose first unlock was counted (free or charged): each is counted once. */
      countedCandidates: Record<string, 'free' | 'charged'>;
      freeUsed: number;
    };

export type ActiveWorkspace = Extract<WorkspaceState, { status: 'active' }>;

export const initialWorkspaceState = (): WorkspaceState => ({ status: 'none' });

export const evolveWorkspace = (state: WorkspaceState, event: WorkspaceEvent): WorkspaceState => {
  if (event.type === 'WorkspaceCreated') {
    const { workspaceId, name, freeAllowance } = event.data;
    return {
      status: 'active', id: workspaceId, name, verified: false, freeAllowance, apiKeys: {}, webhook: null,
      customTests: {}, sandboxUsage: [], countedCandidates: {}, freeUsed: 0,
    };
  }
  if (state.status !== 'active') return state;
  switch (event.type) {
    case 'WorkspaceVerified':
      return { ...state, verified: true };
    case 'ApiKeyIssued':
    case 'ApiKeyRegenerated':
      return { ...state, apiKeys: { ...state.apiKeys, [event.data.apiKeyId]: { mode: event.data.mode, key: event.data.key } } };
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
      return { ...state, customTests: { ...state.customTests, [slug]: { slug, name, minutes, questionCount } } };
    }
    case 'SandboxPlacesUsed':
      return { ...state, sandboxUsage: [...state.sandboxUsage, { usedAt: event.data.usedAt, count: event.data.places }] };
    case 'FreeAllowanceUsed':
      return { ...state, freeUsed: state.freeUsed + 1, countedCandidates: { ...state.countedCandidates, [event.data.candidateId]: 'free' } };
    case 'CandidateCharged':
      return { ...state, countedCandidates: { ...state.countedCandidates, [event.data.candidateId]: 'charged' } };
    default:
      return state;
  }
};
