import { isEnvelopeSource, type DomainEvent, type EnvelopeSourceType } from '#domain';
import type { RecordedEvent } from '#event-store';

type ToRecorded<E> = E extends { type: infer T extends string; data: infer D extends object } ? RecordedEvent<T, D> : never;

/** The recorded domain events that become webhooks, each with its data typed: the envelope's sources (`envelopeOf`). */
export type WebhookSourceEvent = ToRecorded<Extract<DomainEvent, { type: EnvelopeSourceType }>>;

/** The store hands over untyped events; only the domain appends, so the type name is enough to trust the data. */
export const asWebhookSourceEvent = (event: RecordedEvent): WebhookSourceEvent | null =>
  isEnvelopeSource(event) ? (event as WebhookSourceEvent) : null;

/** Events whose payload shows results: they need the candidate as it stood at the event. */
export const needsCandidateState = (event: WebhookSourceEvent): event is Extract<WebhookSourceEvent, { type: 'TestCompleted' | 'AssessmentCompleted' | 'ResultUnlocked' }> =>
  event.type === 'TestCompleted' || event.type === 'AssessmentCompleted' || event.type === 'ResultUnlocked';
