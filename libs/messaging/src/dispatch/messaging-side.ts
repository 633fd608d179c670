import { PERSON_ENDING_EVENTS } from '#domain';
import type { InlineProjector } from '#event-store';
import type { SecretBox } from '#platform';
import { createInlineOutbox, INLINE_OUTBOX } from '../emails/inline-outbox.js';
import { webhookSettingsFromLog } from '../webhooks/webhook-settings-from-log.js';
import { startMessaging, type Messaging, type StartMessagingOptions } from './start-messaging.js';

/*
 * The messaging side builds its own parts (startMessaging, the webhook settings from the log, the
 * inline outbox, what a write waits for); the composition root hands in the ports it does not own
 * (disabling an address, the events feed, the erasure, the lease) and registers the waiter.
 */

/** A write as messaging sees it when asked to wait for it (the write side's CommittedWrite). */
export interface WriteToWaitFor {
  inline: readonly string[];
  events: readonly { type: string; data: object }[];
}

export interface MessagingWaiter {
  waitForPosition(position: bigint, timeoutMs: number, write?: WriteToWaitFor): Promise<boolean>;
}

export interface MessagingSideDeps extends Omit<StartMessagingOptions, 'getSigningSecrets' | 'outboxInline'> {
  secretBox: SecretBox;
  /** This process's projectors of the append transactions, or null where there are none (the dispatcher records the e-mails). */
  inline: { add(projector: InlineProjector): void } | null;
  redisHealth: { readonly isUp: boolean; untilDown(): Promise<void> };
  /** Whether some worker holds the followers' lease, so that a dispatcher runs somewhere. */
  followersLeaseHeld: () => Promise<boolean>;
}

const POLL_EVERY_MS = 10;

/** Read-your-writes against a checkpoint stored elsewhere (another process advances it). */
const pollPosition = async (read: () => Promise<bigint | null>, position: bigint, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await read();
    if (current !== null && current >= position) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
};

/**
 * Starts the messaging side: in the worker and standalone processes with its dispatcher and BullMQ
 * workers; in the internal application of a multi-process set-up as a client (logs, outbox,
 * resends). Returns it with what a write of this process waits for.
 */
export const startMessagingSide = async (deps: MessagingSideDeps): Promise<{ messaging: Messaging; waiter: MessagingWaiter }> => {
  const { secretBox, inline, redisHealth, followersLeaseHeld, ...options } = deps;
  const settings = webhookSettingsFromLog({ eventStore: deps.eventStore, secretBox, clock: deps.clock });
  const messaging = await startMessaging({ ...options, getSigningSecrets: settings.getSigningSecrets, outboxInline: inline !== null });
  // The outbox table exists now (startMessaging made it): e-mails are recorded with their invitations.
  const dispatcher = messaging.dispatcher;
  inline?.add(createInlineOutbox({
    outbox: messaging.outbox, appUrl: deps.appUrl,
    ...(dispatcher === null ? {} : { onRecorded: (eventIds: readonly string[]) => dispatcher.recordedInline(eventIds) }),
  }));
  // A write waits for the dispatcher only while Redis is up (without it every write would wait out
  // the timeout; the side effects catch up from the log once it is back). A dispatcher of this process
  // that always runs is waited for directly; otherwise its stored checkpoint is polled, and only while
  // some worker holds the followers' lease (with none, nothing would move until a worker runs).
  const alwaysHere = dispatcher !== null && deps.dispatcherUnderLease !== true;
  const dispatched = alwaysHere
    ? (position: bigint, timeoutMs: number) => dispatcher.waitForPosition(position, timeoutMs).then(() => true, () => false)
    : async (position: bigint, timeoutMs: number) => !(await followersLeaseHeld())
      || pollPosition(() => messaging.dispatchedPosition(), position, timeoutMs);
  const waiter: MessagingWaiter = {
    waitForPosition: async (position, timeoutMs, write) => {
      if (write !== undefined) settings.written(write.events);
      if (!redisHealth.isUp) return true;
      // A deletion waits for its erasure (the dispatcher's reaction): the answer means the data is gone.
      const erases = write?.events.some((event) => (PERSON_ENDING_EVENTS as readonly string[]).includes(event.type)) === true;
      // The e-mails are in the outbox already when the write committed inline: only a webhook is left to wait for.
      if (write?.inline.includes(INLINE_OUTBOX) === true && !erases && !(await settings.deliversWebhooks(write.events))) return true;
      return Promise.race([dispatched(position, timeoutMs), redisHealth.untilDown().then(() => true)]);
    },
  };
  return { messaging, waiter };
};
