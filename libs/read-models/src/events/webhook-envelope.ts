import type { EnvelopeSourceType } from '#domain';
import type { RecordedDomainEvent } from '../shared/recorded-domain-event.js';

// The envelope is built by one pure function of the domain, for the events feed here and for webhooks in messaging.
export {
  ENVELOPE_SOURCE_TYPES, NO_CONTEXT, completionView, envelopeEventName, envelopeOf, isEnvelopeSource, resultView, resultViews,
  type EnvelopeContext, type InvitationView, type WebhookData, type WebhookEnvelope,
} from '#domain';

/** The recorded domain events that become envelopes. */
export type EnvelopeSourceEvent = Extract<RecordedDomainEvent, { type: EnvelopeSourceType }>;
