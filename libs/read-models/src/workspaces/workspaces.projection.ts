import type { WebhookState } from '#domain';
import { SANDBOX_WINDOW_DAYS } from '#domain';
import type { Projection } from '../shared/projection.js';

/** The workspace's webhook as the domain folds it, without when it was saved. */
export type WebhookSettings = Omit<WebhookState, 'configuredAt'>;

export interface WorkspaceDocument {
  id: string;
  name: string;
  verified: boolean;
  freeAllowance: number;
  createdAt: string;
  customTests: { slug: string; name: string; minutes: number; questionCount: number }[];
  sandboxUsage: { usedAt: string; count: number }[];
  webhook: WebhookSettings | null;
}

const DAY_MS = 86_400_000;

/**
 * Uses older than the window at the time of a new use can never count again (the domain clock
 * never moves back), so they are dropped to keep the document small.
 */
const withinWindow = (usage: WorkspaceDocument['sandboxUsage'], now: string): WorkspaceDocument['sandboxUsage'] => {
  const windowStart = Date.parse(now) - SANDBOX_WINDOW_DAYS * DAY_MS;
  return usage.filter((use) => Date.parse(use.usedAt) > windowStart);
};

export const workspacesProjection: Projection<WorkspaceDocument> = {
  name: 'workspaces',
  indexes: [],
  eventTypes: [
    'WorkspaceCreated', 'WorkspaceVerified', 'WebhookConfigured', 'WebhookSecretRotated', 'WebhookDisabled',
    'CustomTestCreated', 'SandboxPlacesUsed',
  ],
  documentIds: (event) => ('workspaceId' in event.data ? [event.data.workspaceId] : []),
  evolve(document, event) {
    if (event.type === 'WorkspaceCreated') {
      const { workspaceId, name, freeAllowance, createdAt } = event.data;
      return { id: workspaceId, name, verified: false, freeAllowance, createdAt, customTests: [], sandboxUsage: [], webhook: null };
    }
    if (document === null) return null;
    switch (event.type) {
      case 'WorkspaceVerified':
        return { ...document, verified: true };
      case 'WebhookConfigured': {
        const { url, events, encryptedSecret } = event.data;
        // Saving again enables the address; a rotation's previous secret keeps signing for its 24 hours.
        const previous = document.webhook;
        return {
          ...document,
          webhook: {
            url, events, encryptedSecret, enabled: true, disabledReason: null,
            previousEncryptedSecret: previous?.previousEncryptedSecret ?? null, rotatedAt: previous?.rotatedAt ?? null,
          },
        };
      }
      case 'WebhookSecretRotated': {
        if (document.webhook === null) return document;
        const { encryptedSecret, previousEncryptedSecret, rotatedAt } = event.data;
        return { ...document, webhook: { ...document.webhook, encryptedSecret, previousEncryptedSecret, rotatedAt } };
      }
      case 'WebhookDisabled':
        // A disabling decided for an address that has since been replaced does not touch the new one.
        if (document.webhook === null || document.webhook.url !== event.data.url) return document;
        return { ...document, webhook: { ...document.webhook, enabled: false, disabledReason: event.data.reason } };
      case 'CustomTestCreated': {
        const { slug, name, minutes, questionCount } = event.data;
        const others = document.customTests.filter((test) => test.slug !== slug);
        return { ...document, customTests: [...others, { slug, name, minutes, questionCount }] };
      }
      case 'SandboxPlacesUsed': {
        const { usedAt, places } = event.data;
        return { ...document, sandboxUsage: [...withinWindow(document.sandboxUsage, usedAt), { usedAt, count: places }] };
      }
      default:
        return document;
    }
  },
};
