import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { WEBHOOK_EVENT_NAMES } from '#domain';
import { WEBHOOK_QUEUE, type WebhookJob } from '../shared/queues.js';
import type { DeliveryLog, StoredDelivery } from '../webhooks/delivery-log.js';
import type { WebhookEnvelope } from '../webhooks/envelopes.js';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.js';
import { createWebhookWorker, type DeliveryOutcome } from '../webhooks/webhook-delivery.worker.js';
import type { RecoveryLog } from '../webhooks/recovery-log.js';
import { type FeedWindow, WebhookRecoveries } from '../webhooks/webhook-recovery.js';
import type { DisableReason, WebhookSettings } from '../webhooks/webhook-settings.js';
import { TestClock, waitFor } from './clock.js';
import { connectRedis, deleteKeys, uniquePrefix } from './redis.js';

export const envelopeFor = (workspaceId: string, createdAt = '2026-11-02T09:00:00.000Z'): WebhookEnvelope => ({
  id: randomUUID(), event: 'candidateCreated', createdAt, workspaceId,
  data: { candidate: { id: 'cand_1', email: 'ada@example.com', firstName: 'Ada', surname: 'Lovelace' } },
});

export interface WebhookHarness {
  workspaceId: string;
  settings: WebhookSettings;
  clock: TestClock;
  disabled: Array<{ workspaceId: string; url: string; reason: DisableReason }>;
  queue: Queue<WebhookJob>;
  deliveries: WebhookDeliveries;
  /** With `recoveryLog` and `feedWindow` given; the worker passes turns through it. */
  recoveries: WebhookRecoveries | null;
  startWorker(): Promise<Worker<WebhookJob, DeliveryOutcome>>;
  waitForStatus(id: string, status: StoredDelivery['status'], timeoutMs?: number): Promise<StoredDelivery>;
  close(): Promise<void>;
}

/**
 * A webhook queue and worker on a prefix of their own, against the real delivery log. The settings
 * callback reads a plain object the test changes, as the lead's read model would change.
 */
export const createWebhookHarness = async (input: {
  log: DeliveryLog; url: string; backoffMs: number; allowInsecure?: boolean; timeoutMs?: number; secrets?: string[];
  recoveryLog?: RecoveryLog; feedWindow?: FeedWindow;
}): Promise<WebhookHarness> => {
  const workspaceId = `ws_${randomUUID().slice(0, 8)}`;
  const prefix = uniquePrefix('webhooks');
  const connections: Redis[] = [connectRedis(), connectRedis()];
  const [queueConnection, workerConnection] = connections as [Redis, Redis];
  const settings: WebhookSettings = { url: input.url, events: [...WEBHOOK_EVENT_NAMES], enabled: true, secrets: input.secrets ?? ['whsec_current'] };
  const clock = new TestClock();
  const disabled: WebhookHarness['disabled'] = [];
  const getSigningSecrets = async (id: string): Promise<WebhookSettings | null> => (id === workspaceId ? { ...settings } : null);
  const queue = new Queue<WebhookJob>(WEBHOOK_QUEUE, { connection: queueConnection, prefix });
  const deliveries = new WebhookDeliveries({ log: input.log, queue, clock, getSigningSecrets });
  const recoveries = input.recoveryLog && input.feedWindow
    ? new WebhookRecoveries({ log: input.recoveryLog, deliveries, clock, getSigningSecrets, feedWindow: input.feedWindow })
    : null;
  let worker: Worker<WebhookJob, DeliveryOutcome> | null = null;
  return {
    workspaceId, settings, clock, disabled, queue, deliveries, recoveries,
    startWorker: async () => {
      worker = createWebhookWorker({
        connection: workerConnection, prefix, log: input.log, clock, getSigningSecrets, backoffMs: input.backoffMs,
        allowInsecure: input.allowInsecure ?? true, timeoutMs: input.timeoutMs, ...(recoveries === null ? {} : { recoveries }),
        disableWebhook: async (id, url, reason) => {
          disabled.push({ workspaceId: id, url, reason });
          settings.enabled = false;
        },
      });
      await worker.waitUntilReady();
      return worker;
    },
    waitForStatus: (id, status, timeoutMs = 10_000) =>
      waitFor(async () => {
        const delivery = await input.log.get(id);
        return delivery?.status === status ? delivery : null;
      }, timeoutMs, `delivery ${id} to be ${status}`),
    close: async () => {
      await worker?.close();
      await queue.close();
      await deleteKeys(queueConnection, prefix);
      await Promise.all(connections.map((connection) => connection.quit()));
    },
  };
};
