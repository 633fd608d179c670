import type { WebhookEventName } from '#domain';

/** The workspace's webhook as the messaging side needs it, with the signing secrets already opened. */
export interface WebhookSettings {
  url: string;
  events: readonly WebhookEventName[];
  enabled: boolean;
  /** The current secret first, then the previous one while within 24 hours (domain clock) of a rotation. */
  secrets: string[];
  /**
   * Domain time the address was last saved (enabled). Failed attempts before it do not count toward
   * the 5-day rule, so saving the settings again really gives the address a fresh start.
   */
  enabledAt?: string | null;
}

export type GetSigningSecrets = (workspaceId: string) => Promise<WebhookSettings | null>;

export type DisableReason = 'gone' | 'failing';

/** Wired to the domain command that disables the workspace's address (recorded as WebhookDisabled). */
export type DisableWebhook = (workspaceId: string, url: string, reason: DisableReason) => Promise<void>;
