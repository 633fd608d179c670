import { DisableWebhook, DisableWebhookHandler } from '#commands';
import { systemContext } from '#commands';
import { evolveWorkspace, initialWorkspaceState, workspaceStream } from '#domain';
import type { RecordedEvent } from '#event-store';
import { servedFeedWindow } from '#read-models';
import {
  INLINE_OUTBOX, type Messaging, type WebhookSettings, asWebhookSourceEvent, createInlineOutbox, startMessaging, webhookEventName,
} from '#messaging';
import type { Infrastructure } from './infrastructure.js';
import { PERSON_ENDING_TYPES, PersonalDataErasure } from './personal-data-erasure.js';
import { FOLLOWERS_LEASE, LeaseObserver } from './lease.js';
import { PolledPosition } from './read-side.js';

const ROTATION_OVERLAP_MS = 24 * 3600_000;

/** How old a cached workspace may be for the webhook check after a write (see deliversWebhooks). */
const WEBHOOK_SETTINGS_MAX_AGE_MS = 1_000;

/**
 * The webhook settings as of the log itself (not a read model that may lag behind the event being
 * dispatched), with the secrets opened: the new one first, the old one for 24 h after a rotation.
 */
export const webhookSettingsFromLog = (infra: Infrastructure) => {
  // Sealed secret -> opened secret: a sealed value never changes meaning, so opening it once per process is enough.
  const opened = new Map<string, string>();
  const open = (sealed: string): string => {
    const known = opened.get(sealed);
    if (known !== undefined) return known;
    const secret = infra.secretBox.open(sealed);
    if (opened.size >= 10_000) opened.clear();
    opened.set(sealed, secret);
    return secret;
  };
  return async (workspaceId: string): Promise<WebhookSettings | null> => {
    const { state } = await infra.writer.load(workspaceStream(workspaceId), initialWorkspaceState, evolveWorkspace);
    if (state.status !== 'active' || !state.webhook) return null;
    const webhook = state.webhook;
    const now = Date.parse(await infra.clock.now());
    const secrets = [open(webhook.encryptedSecret)];
    if (webhook.previousEncryptedSecret && webhook.rotatedAt && now - Date.parse(webhook.rotatedAt) < ROTATION_OVERLAP_MS) {
      secrets.push(open(webhook.previousEncryptedSecret));
    }
    return { url: webhook.url, events: webhook.events, enabled: webhook.enabled, secrets, enabledAt: webhook.configuredAt };
  };
};

/**
 * Starts the messaging side: in the worker and standalone processes with its dispatcher and BullMQ
 * workers; in the internal application of a multi-process set-up as a client (logs, outbox, resends).
 */
export const startMessagingFor = async (infra: Infrastructure, options: { runWorkers: boolean; dispatcherUnderLease?: boolean }): Promise<Messaging> => {
  const disable = new DisableWebhookHandler(infra.writer);
  const messaging = await startMessaging({
    eventStore: infra.eventStore,
    pool: infra.sidePool,
    redis: infra.redis,
    prefix: infra.config.queuePrefix,
    clock: infra.clock,
    appUrl: infra.config.appUrl,
    smtpUrl: infra.config.smtpUrl,
    backoffMs: infra.config.webhookBackoffMs,
    webhookConcurrency: infra.config.webhookConcurrency ?? undefined,
    allowInsecure: infra.config.webhookAllowInsecure,
    getSigningSecrets: webhookSettingsFromLog(infra),
    disableWebhook: (workspaceId, url, reason) => disable.execute(new DisableWebhook(workspaceId, url, reason, systemContext(`webhook-${reason}`))),
    feedWindow: (query) => servedFeedWindow(infra.documents, query, infra.config.appUrl),
    logger: infra.logger.child({ component: 'messaging' }),
    runWorkers: options.runWorkers,
    outboxInline: infra.inline !== null,
    database: infra.database,
    dispatcherUnderLease: options.dispatcherUnderLease === true,
    erasure: ({ outbox, log }) => new PersonalDataErasure({
      logStore: infra.audit.logStore, documents: infra.documents, outbox, deliveries: log, redis: infra.redis,
      personKeys: infra.audit.personKeys, redisPrefixes: [`${infra.config.queuePrefix}:`, 'idem:'], logger: infra.logger.child({ component: 'erasure' }),
    }),
  });
  infra.messaging = messaging;
  // The outbox table exists now (startMessaging made it): e-mails are recorded with their invitations.
  const dispatcher = messaging.dispatcher;
  infra.inline?.add(createInlineOutbox({
    outbox: messaging.outbox, appUrl: infra.config.appUrl,
    ...(dispatcher === null ? {} : { onRecorded: (eventIds: readonly string[]) => dispatcher.recordedInline(eventIds) }),
  }));
  // A write waits for the dispatcher only while Redis is up: without it the dispatcher cannot enqueue
  // and would hold every write for the whole timeout. The side effects are recorded from the log and
  // catch up once Redis is back; the write answers as soon as the read models show it.
  const health = infra.redisHealth;
  // A dispatcher of this process that always runs is waited for directly. Otherwise (API processes,
  // the internal app, a worker that may not hold the lease) its stored checkpoint is polled, and only
  // while some worker holds the followers' lease: with every worker stopped nothing would move, and
  // the answer does not wait for it (the side effects are recorded from the log once a worker runs).
  const alwaysHere = dispatcher !== null && options.dispatcherUnderLease !== true;
  const dispatcherAlive = new LeaseObserver(infra.sidePool, FOLLOWERS_LEASE);
  const dispatched = alwaysHere
    ? (position: bigint, timeoutMs: number) => dispatcher.waitForPosition(position, timeoutMs).then(() => true, () => false)
    : async (position: bigint, timeoutMs: number) => !(await dispatcherAlive.isHeld())
      || new PolledPosition(() => messaging.dispatchedPosition()).waitForPosition(position, timeoutMs);
  /**
   * Whether any event of a write becomes a webhook delivery (the e-mails are in the outbox already
   * when the write committed inline). A peek at the workspace: only decides whether to wait. A
   * setting changed by another process in the last second may be missed: the delivery is still made
   * from the log, the answer just does not wait for it.
   */
  const deliversWebhooks = async (events: readonly { type: string; data: object }[]): Promise<boolean> => {
    const sources = events.map((event) => asWebhookSourceEvent(event as RecordedEvent)).filter((source) => source !== null);
    for (const source of sources) {
      const { state } = await infra.writer.peek(workspaceStream(source.data.workspaceId), initialWorkspaceState, evolveWorkspace, WEBHOOK_SETTINGS_MAX_AGE_MS);
      if (state.status === 'active' && state.webhook?.events.includes(webhookEventName(source)) === true) return true;
    }
    return false;
  };
  infra.readSide.add({
    waitForPosition: async (position, timeoutMs, write) => {
      if (!health.isUp) return true;
      // A deletion waits for its erasure (the dispatcher's reaction): the answer means the data is gone.
      const erases = write?.events.some((event) => (PERSON_ENDING_TYPES as readonly string[]).includes(event.type)) === true;
      if (write?.inline.includes(INLINE_OUTBOX) === true && !erases && !(await deliversWebhooks(write.events))) return true;
      return Promise.race([dispatched(position, timeoutMs), health.untilDown().then(() => true)]);
    },
  });
  return messaging;
};
