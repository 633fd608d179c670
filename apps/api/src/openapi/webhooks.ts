import { WEBHOOK_EVENT_NAMES, type WebhookEventName } from '#domain';
import { schemaParts } from '#http';

type Schema = Record<string, unknown>;
const { ref, object } = schemaParts;
const withResult = object({ candidate: ref('CandidateRef'), assessment: ref('AssessmentRef'), result: ref('Result') });

const DATA: Record<WebhookEventName, { when: string; data: Schema }> = {
  candidateCreated: { when: 'A candidate is created', data: object({ candidate: ref('CandidateRef') }) },
  candidateInvited: { when: 'A candidate is invited', data: object({ assessment: ref('AssessmentRef'), invitation: ref('InvitationEntry') }) },
  assessmentStarted: {
    when: 'A candidate starts an assessment',
    data: object({ candidate: ref('CandidateRef'), assessment: ref('AssessmentRef'), startedAt: { type: 'string', format: 'date-time' } }),
  },
  testCompleted: { when: 'A candidate finishes a test (the result is locked)', data: withResult },
  assessmentCompleted: { when: 'A candidate finishes every test of an assessment; carries the report link', data: ref('Completion') },
  resultUnlocked: { when: 'A score becomes readable', data: withResult },
};

const envelopeName = (event: WebhookEventName): string => `${event[0]?.toUpperCase()}${event.slice(1)}Envelope`;

/** Any envelope: what the events feed lists (one of the six, told apart by `event`). */
export const ENVELOPE_SCHEMA_NAME = 'Envelope';

const anyEnvelope = (): Schema => ({
  description: 'An event as webhooks carry it: the same id, body and `sandbox` flag in the feed as in a delivery',
  oneOf: WEBHOOK_EVENT_NAMES.map((event) => ref(envelopeName(event))),
  discriminator: { propertyName: 'event', mapping: Object.fromEntries(WEBHOOK_EVENT_NAMES.map((event) => [event, `#/components/schemas/${envelopeName(event)}`])) },
});

/** One envelope schema per event: the common fields, `event` fixed, and the event's `data`; and `Envelope`, any of them. */
export const webhookSchemas = (): Record<string, Schema> => ({ ...envelopeSchemas(), [ENVELOPE_SCHEMA_NAME]: anyEnvelope() });

const envelopeSchemas = (): Record<string, Schema> =>
  Object.fromEntries(WEBHOOK_EVENT_NAMES.map((event) => [envelopeName(event), {
    type: 'object',
    required: ['id', 'event', 'createdAt', 'workspaceId', 'data'],
    properties: {
      id: { type: 'string', description: 'The event id: the same across retries and resends; de-duplicate on it' },
      event: { const: event },
      createdAt: { type: 'string', format: 'date-time', description: 'When the event happened' },
      workspaceId: { type: 'string' },
      data: DATA[event].data,
      sandbox: { const: true, description: 'Present, and true, for test candidates only; live envelopes have no `sandbox` field' },
    },
  }]));

const HEADERS = [
  { name: 'X-Webhook-Signature', required: true, description: '`t=<Unix seconds>,v1=<hex>`: HMAC-SHA256 with the webhook secret over `<t>.<raw body>`. For 24 hours after a rotation a second `v1=` carries the old secret\'s signature. Accept the delivery when any `v1` matches.', schema: { type: 'string', pattern: '^t=[0-9]+(,v1=[0-9a-f]{64})+$' } },
  { name: 'X-Webhook-Id', required: true, description: 'The envelope id', schema: { type: 'string' } },
  { name: 'X-Webhook-Timestamp', required: true, description: 'Unix seconds of this attempt (also the `t` of the signature)', schema: { type: 'string', pattern: '^[0-9]+$' } },
];

/**
 * How a receiver authenticates a delivery: the service's signature with the webhook secret. OpenAPI
 * has no scheme for a signature; an API key in the header is the closest.
 */
export const WEBHOOK_SIGNATURE_SCHEME = {
  name: 'webhookSignature',
  scheme: {
    type: 'apiKey' as const,
    in: 'header' as const,
    name: 'X-Webhook-Signature',
    description: 'Signed by the service: `t=<Unix seconds>,v1=<hex>`, HMAC-SHA256 with the whole webhook secret (`whsec_…`) as the key over `<t>.<raw body>`. '
      + 'A receiver recomputes it and answers a delivery whose signature matches no `v1` with 400 or 401 (never 410, which disables the address).',
  },
};

const DELIVERY = 'POSTed by the service to the one HTTPS address saved on the integrations page, when the workspace chose this event there. '
  + 'Verify `X-Webhook-Signature` over the raw body before trusting it, and de-duplicate on the envelope `id` (the same across retries and resends). '
  + 'Envelopes of test candidates carry `sandbox: true`.';

/** The six events under `webhooks` (OpenAPI 3.1): what the service POSTs to the saved address. */
export const webhooks = (): Record<string, Schema> =>
  Object.fromEntries(WEBHOOK_EVENT_NAMES.map((event) => [event, {
    post: {
      operationId: `${event}Webhook`,
      summary: DATA[event].when,
      description: `${DATA[event].when}. ${DELIVERY}`,
      tags: ['Webhooks'],
      security: [{ [WEBHOOK_SIGNATURE_SCHEME.name]: [] }],
      parameters: HEADERS.map((header) => ({ in: 'header', ...header })),
      requestBody: { required: true, content: { 'application/json': { schema: ref(envelopeName(event)) } } },
      responses: {
        '2XX': { description: 'Delivered. Any answer other than a 2xx within 10 seconds is retried 8 times (1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 20 h, 24 h).' },
        '410': { description: 'Gone: the address is disabled until the webhook settings are saved again.' },
      },
    },
  }]));
