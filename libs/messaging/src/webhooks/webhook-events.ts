import type { WebhookEventName } from '#domain';
import type { RecordedEvent } from '#event-store';
import { envelopeEventName, isEnvelopeSource, type EnvelopeSourceEvent, type RecordedDomainEvent } from '#read-models';

/** The recorded domain events that become webhooks, each with its data typed: the read models' envelope sources. */
export type WebhookSourceEvent = EnvelopeSourceEvent;

/** The store hands over untyped events; only the domain appends, so the type name is enough to trust the data. */
export const asWebhookSourceEvent = (event: RecordedEvent): WebhookSourceEvent | null =>
  isEnvelopeSource(event as RecordedDomainEvent) ? (event as WebhookSourceEvent) : null;

/** The event's name in envelopes: the read models' one mapping, which the events feed uses too. */
export const webhookEventName = (event: WebhookSourceEvent): WebhookEventName => envelopeEventName(event);

/** Events whose payload shows results: they need the candidate as it stood at the event. */
export const needsCandidateState = (event: WebhookSourceEvent): event is Extract<WebhookSourceEvent, { type: 'TestCompleted' | 'AssessmentCompleted' | 'ResultUnlocked' }> =>
  event.type === 'TestCompleted' || event.type === 'AssessmentCompleted' || event.type === 'ResultUnlocked';
