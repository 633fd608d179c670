import type { Logger } from 'pino';
import type { WebhookEventName } from '#domain';
import type { Clock } from '#platform';
import { newRecoveryId, resendDeliveryId } from './delivery-ids.js';
import type { WebhookEnvelope } from './envelopes.js';
import type { RecoveredEvent, RecoveryLog } from './recovery-log.js';
import type { WebhookDeliveries } from './webhook-deliveries.js';
import type { GetSigningSecrets } from './webhook-settings.js';

/** Both ends included, domain time (`…T…sssZ`), checked by the caller (at most 30 days back, since <= until). */
export interface RecoveryWindow {
  since: string;
  until: string;
}

/** A row of the events feed: its position and its envelope as served (links on APP_URL). */
export interface FeedRow {
  seq: string;
  json: string;
}

/** The events feed's rows of a window (`servedFeedWindow` of the read models), both modes, in the log's order. */
export type FeedWindow = (query: { workspaceId: string; types: readonly WebhookEventName[]; since: string; until: string }) => AsyncIterable<FeedRow>;

export interface RecoveryResult {
  /** Delivery rows made: one per event of the window the settings select now. */
  count: number;
  /** The rows were logged `failed` (`endpoint_disabled`): save the settings again first. */
  addressDisabled: boolean;
}

export interface WebhookRecoveriesDeps {
  log: RecoveryLog;
  deliveries: WebhookDeliveries;
  clock: Clock;
  getSigningSecrets: GetSigningSecrets;
  feedWindow: FeedWindow;
  logger?: Logger;
}

/** How long an answer waits for Redis to take the first job (the rows are committed before). */
const ENQUEUE_WAIT_MS = 2_000;

const recoveredEvent = (body: string): RecoveredEvent => {
  const envelope = JSON.parse(body) as WebhookEnvelope;
  return { deliveryId: resendDeliveryId(), eventId: envelope.id, event: envelope.event, body, sandbox: envelope.sandbox === true };
};

/**
 * Webhook recovery: every event of a window that the settings select now, sent again to the saved
 * address as new rows carrying the original envelopes (the feed's JSON is the first delivery's body).
 * In the log's order without giving up the worker's concurrency: the rows are written in one
 * transaction, each with its turn, and only the head has a job; once its attempt ends (any outcome)
 * the next row's job is added. A failed row retries on its own schedule beside the others, so order
 * holds while the receiver answers 2xx; envelope ids and `createdAt` let it de-duplicate and reorder.
 */
export class WebhookRecoveries {
  constructor(private readonly deps: WebhookRecoveriesDeps) {}

  /** Null when the workspace has no webhook. The feed window is held in memory: one workspace, 30 days at most. */
  async recover(workspaceId: string, window: RecoveryWindow): Promise<RecoveryResult | null> {
    const settings = await this.deps.getSigningSecrets(workspaceId);
    if (!settings) return null;
    const events: RecoveredEvent[] = [];
    for await (const row of this.deps.feedWindow({ workspaceId, types: settings.events, ...window })) {
      events.push(recoveredEvent(row.json));
    }
    const recoveryId = newRecoveryId();
    const head = await this.deps.log.insert({
      recoveryId, workspaceId, url: settings.url, createdAt: await this.deps.clock.now(), disabled: !settings.enabled, events,
    });
    if (head !== null) await this.startSequence(head, recoveryId);
    return { count: events.length, addressDisabled: !settings.enabled };
  }

  async passTurn(deliveryId: string, recoveryId: string): Promise<void> {
    const head = await this.deps.log.passTurn(deliveryId, recoveryId);
    if (head !== null) await this.deps.deliveries.enqueue({ deliveryId: head, recoveryId });
  }

  /** The rows are committed: with Redis unreachable the answer does not wait (the sweeper adds the job on reconnection). */
  private async startSequence(head: string, recoveryId: string): Promise<void> {
    const queued = this.deps.deliveries.enqueue({ deliveryId: head, recoveryId }).catch((error: unknown) => {
      this.deps.logger?.warn({ err: error, recoveryId }, 'a webhook recovery is stored but its first job could not be added; the sweeper adds it');
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([queued, new Promise<void>((resolve) => { timer = setTimeout(resolve, ENQUEUE_WAIT_MS); })]);
    clearTimeout(timer);
  }
}
