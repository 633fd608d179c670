import type { Queue } from 'bullmq';
import type { Clock } from '#platform';
import { WEBHOOK_QUEUE, keepJobs, retryJobOptions, webhookJobId, type WebhookJob } from '../shared/queues.js';
import { ENDPOINT_DISABLED, type DeliveryLog, type StoredDelivery } from './delivery-log.js';
import { firstDeliveryId, resendDeliveryId } from './delivery-ids.js';
import type { WebhookEnvelope } from './envelopes.js';
import type { GetSigningSecrets, WebhookSettings } from './webhook-settings.js';

export interface WebhookDeliveriesDeps {
  log: DeliveryLog;
  queue: Queue<WebhookJob>;
  clock: Clock;
  getSigningSecrets: GetSigningSecrets;
}

/** Creates delivery rows and their jobs; every id is deterministic or stored before the job exists. */
export class WebhookDeliveries {
  constructor(private readonly deps: WebhookDeliveriesDeps) {}

  /** Adding a job whose id exists is a no-op in BullMQ, so enqueueing twice sends once. */
  async enqueue(job: WebhookJob): Promise<void> {
    await this.deps.queue.add(WEBHOOK_QUEUE, job, { jobId: webhookJobId(job.deliveryId), ...retryJobOptions, ...keepJobs });
  }

  /**
   * The first delivery of an event to the workspace's address: the row first (insert-if-absent),
   * then the job. A crash between the two is repaired by running the event again.
   * A disabled address gets a `failed` row with `endpoint_disabled` and no job.
   */
  async deliverEvent(envelope: WebhookEnvelope, settings: WebhookSettings, requestId?: string): Promise<StoredDelivery> {
    const disabled = !settings.enabled;
    const { delivery } = await this.deps.log.insertIfAbsent({
      id: firstDeliveryId(envelope.id, settings.url),
      workspaceId: envelope.workspaceId,
      eventId: envelope.id,
      event: envelope.event,
      url: settings.url,
      body: JSON.stringify(envelope),
      sandbox: envelope.sandbox === true,
      createdAt: await this.deps.clock.now(),
      status: disabled ? 'failed' : 'pending',
      lastError: disabled ? ENDPOINT_DISABLED : null,
    });
    if (delivery.status === 'pending') await this.enqueue(requestId === undefined ? { deliveryId: delivery.id } : { deliveryId: delivery.id, requestId });
    return delivery;
  }

  /**
   * A new delivery row (new id, same event and envelope bytes) to the workspace's current address,
   * or the original one when none is configured any more. Null for an unknown delivery id.
   */
  async resendDelivery(deliveryId: string): Promise<string | null> {
    const original = await this.deps.log.get(deliveryId);
    if (!original) return null;
    const settings = await this.deps.getSigningSecrets(original.workspaceId);
    const { delivery } = await this.deps.log.insertIfAbsent({
      id: resendDeliveryId(),
      workspaceId: original.workspaceId,
      eventId: original.eventId,
      event: original.event,
      url: settings?.url ?? original.url,
      body: original.body,
      sandbox: original.sandbox,
      createdAt: await this.deps.clock.now(),
    });
    await this.enqueue({ deliveryId: delivery.id });
    return delivery.id;
  }
}
