import {
  envelopeEventName, evolveWorkspace, initialWorkspaceState, isKnownEventType, workspaceStream, type WorkspaceEvent, type WorkspaceState,
} from '#domain';
import type { EventStore, RecordedEvent } from '#event-store';
import type { Clock, SecretBox } from '#platform';
import { asWebhookSourceEvent } from './webhook-events.js';
import type { GetSigningSecrets, WebhookSettings } from './webhook-settings.js';

const ROTATION_OVERLAP_MS = 24 * 3600_000;

/** Workspaces whose folded state is kept; one more evicts the least recently used. */
const WORKSPACES_KEPT = 1_000;

/** Sealed secrets kept opened; past it the map starts again empty. */
const OPENED_SECRETS_KEPT = 10_000;

/** The workspace events that change what the webhook check reads (the workspace's status and webhook). */
const CHANGES_WEBHOOK = new Set<WorkspaceEvent['type']>(['WorkspaceCreated', 'WebhookConfigured', 'WebhookSecretRotated', 'WebhookDisabled']) as ReadonlySet<string>;

interface Folded {
  state: WorkspaceState;
  revision: number;
  /** When the log last confirmed this state (performance.now()). */
  checkedAt: number;
}

/**
 * Workspaces' states folded from the log (messaging reads no write-side cache), each kept at a revision.
 * - `current` reads the events after the kept revision on every call, so it needs no invalidation: a
 *   stream only grows, so the state at r plus the events after r is the state now, whoever appended them.
 * - `recent` answers a state read at most `maxAgeMs` ago without reading: its callers accept missing
 *   another process's change that young; this process's writes pass `forget` before they are answered.
 * - Size: WORKSPACES_KEPT workspaces, the least recently used dropped first.
 */
export class WorkspaceStates {
  private readonly folded = new Map<string, Folded>();

  constructor(private readonly store: Pick<EventStore, 'readStream'>) {}

  async current(workspaceId: string): Promise<WorkspaceState> {
    const streamId = workspaceStream(workspaceId);
    const kept = this.folded.get(workspaceId);
    const events = await this.store.readStream(streamId, kept === undefined ? undefined : { fromRevision: kept.revision + 1 });
    let state = kept?.state ?? initialWorkspaceState();
    for (const event of events) state = evolveWorkspace(state, readable(streamId, event));
    const revision = events.at(-1)?.revision ?? kept?.revision;
    // Two reads of one workspace may overlap: the one that saw fewer events must not replace the other.
    const newest = this.folded.get(workspaceId);
    if (revision !== undefined && (newest === undefined || newest.revision <= revision)) {
      this.keep(workspaceId, { state, revision, checkedAt: performance.now() });
    }
    return state;
  }

  /** The state as read at most `maxAgeMs` ago, without a read when this process has one that young. */
  recent(workspaceId: string, maxAgeMs: number): Promise<WorkspaceState> {
    const kept = this.folded.get(workspaceId);
    if (kept !== undefined && performance.now() - kept.checkedAt <= maxAgeMs) return Promise.resolve(kept.state);
    return this.current(workspaceId);
  }

  /** This process wrote these events: a workspace whose webhook they change is read again next time. */
  forget(events: readonly { type: string; data: object }[]): void {
    for (const event of events) {
      if (CHANGES_WEBHOOK.has(event.type) && 'workspaceId' in event.data && typeof event.data.workspaceId === 'string') this.folded.delete(event.data.workspaceId);
    }
  }

  private keep(workspaceId: string, folded: Folded): void {
    this.folded.delete(workspaceId);
    this.folded.set(workspaceId, folded);
    if (this.folded.size > WORKSPACES_KEPT) {
      const [oldest] = this.folded.keys();
      if (oldest !== undefined) this.folded.delete(oldest);
    }
  }
}

/**
 * An event this version cannot read (a newer version wrote it during a rolling deploy): the
 * settings folded past it could be wrong, so the read fails, as the write side's does.
 */
const readable = (streamId: string, event: RecordedEvent): WorkspaceEvent => {
  if (!isKnownEventType(event.type)) {
    throw new Error(`stream ${streamId} holds at revision ${event.revision} an event of type ${event.type}, unknown to this version`);
  }
  return { type: event.type, data: event.data } as WorkspaceEvent;
};

/** How old a workspace may be for the "does this write make a webhook" check (see deliversWebhooks). */
const WEBHOOK_CHECK_MAX_AGE_MS = 1_000;

export interface WebhookSettingsFromLog {
  /**
   * The webhook settings as of the log itself (not a read model that may lag behind the event being
   * dispatched), with the secrets opened: the new one first, the old one for 24 h after a rotation.
   */
  getSigningSecrets: GetSigningSecrets;
  /**
   * Whether any of a write's events becomes a webhook delivery. Only decides whether an answer
   * waits for the dispatcher: a setting another process changed in the last second may be missed,
   * and the delivery is still made from the log, the answer just does not wait for it.
   */
  deliversWebhooks(events: readonly { type: string; data: object }[]): Promise<boolean>;
  /** Every write of this process, before it is answered: a webhook it changed is read from the log next time. */
  written(events: readonly { type: string; data: object }[]): void;
}

export const webhookSettingsFromLog = (deps: { eventStore: Pick<EventStore, 'readStream'>; secretBox: SecretBox; clock: Clock }): WebhookSettingsFromLog => {
  const workspaces = new WorkspaceStates(deps.eventStore);
  // Sealed secret -> opened secret: a sealed value never changes meaning, so opening it once per process is enough.
  const opened = new Map<string, string>();
  const open = (sealed: string): string => {
    const known = opened.get(sealed);
    if (known !== undefined) return known;
    const secret = deps.secretBox.open(sealed);
    if (opened.size >= OPENED_SECRETS_KEPT) opened.clear();
    opened.set(sealed, secret);
    return secret;
  };
  return {
    getSigningSecrets: async (workspaceId: string): Promise<WebhookSettings | null> => {
      const state = await workspaces.current(workspaceId);
      if (state.status !== 'active' || !state.webhook) return null;
      const webhook = state.webhook;
      const now = Date.parse(await deps.clock.now());
      const secrets = [open(webhook.encryptedSecret)];
      if (webhook.previousEncryptedSecret && webhook.rotatedAt && now - Date.parse(webhook.rotatedAt) < ROTATION_OVERLAP_MS) {
        secrets.push(open(webhook.previousEncryptedSecret));
      }
      return { url: webhook.url, events: webhook.events, enabled: webhook.enabled, secrets, enabledAt: webhook.configuredAt };
    },
    deliversWebhooks: async (events) => {
      const sources = events.map((event) => asWebhookSourceEvent(event as RecordedEvent)).filter((source) => source !== null);
      for (const source of sources) {
        const state = await workspaces.recent(source.data.workspaceId, WEBHOOK_CHECK_MAX_AGE_MS);
        if (state.status === 'active' && state.webhook?.events.includes(envelopeEventName(source)) === true) return true;
      }
      return false;
    },
    written: (events) => workspaces.forget(events),
  };
};
