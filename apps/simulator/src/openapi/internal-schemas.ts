import { WEBHOOK_EVENT_NAMES } from '#domain';
import { VIEW_SCHEMAS, schemaParts } from '#http';

/*
 * The internal application's answers as JSON Schema 2020-12 (OpenAPI 3.1 components), written beside
 * the routes that produce them. Every answer the end-to-end suites receive from an internal route is
 * validated against these (test/support/openapi-conformance.ts), so a schema that drifts from the
 * answer fails the test that received it. Assessment, Candidate and Result are the public API's views,
 * described once for both documents (libs/http/src/openapi/view-schemas.ts).
 */

type Schema = schemaParts.Schema;

const { ref, time, nullable, object } = schemaParts;
const text = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const integer = (description: string, minimum = 0): Schema => ({ type: 'integer', minimum, description });
const list = (items: Schema, description: string): Schema => ({ type: 'array', items, description });

/** The same object with these properties no longer required. */
const withOptional = (schema: Schema, optional: string[]): Schema => ({ ...schema, required: (schema.required as string[]).filter((name) => !optional.includes(name)) });

const EVENTS = list({ type: 'string', enum: [...WEBHOOK_EVENT_NAMES] }, 'The events sent, each once, in their canonical order');
const POSITION = { type: 'string', pattern: '^[0-9]+$' };

const WORKSPACES: Record<string, Schema> = {
  Workspace: object({
    id: text('Workspace id'),
    name: text('The name as saved (trimmed)'),
    verified: { type: 'boolean', description: 'Someone in the workspace confirmed an e-mail address: invitations are accepted' },
    freeAllowance: integer('Live candidates unlocked free of charge before billing starts'),
  }),
  ApiKey: object({
    id: text('API key id; regenerating keeps it'),
    key: text('The key: `live_…`, or `SBX_…` for a sandbox key', { pattern: '^(live|SBX)_' }),
    secret: text('The secret: shown only in this answer (only its hash is stored)'),
    mode: { type: 'string', enum: ['live', 'sandbox'] },
  }),
  WebhookSettings: object({
    url: text('The address as saved', { format: 'uri' }),
    events: EVENTS,
    secret: text('The signing secret (`whsec_…`): the whole string is the HMAC key', { pattern: '^whsec_' }),
    enabled: { type: 'boolean', description: 'False once the address was disabled; saving the settings enables it again' },
    disabledReason: { type: ['string', 'null'], enum: ['gone', 'failing', null], description: '`gone` after a 410, `failing` after 5 days of failures; null while enabled' },
  }),
  RotatedWebhookSecret: object({
    url: text('The address as saved', { format: 'uri' }),
    events: EVENTS,
    secret: text('The new signing secret; the previous one also signs for 24 hours', { pattern: '^whsec_' }),
  }),
  CustomTest: object({ slug: text('The new test\'s slug, for `POST /internal/assessments/{id}/tests`'), name: text('The name as saved (trimmed)'), type: { type: 'string', enum: ['custom'] } }),
  BilledCandidate: object({ candidateId: text('Candidate id'), resultId: text('The unlock that billed them'), chargedAt: time('Domain time of that unlock') }),
  Billing: object({ freeAllowance: integer('Live candidates unlocked free of charge'), billedCandidates: list(ref('BilledCandidate'), 'In billing order') }),
};

const CANDIDATES: Record<string, Schema> = {
  Registration: object({ candidateId: text('Candidate id'), assessmentId: text('The assessment registered on') }),
  StartedAssessment: object({
    candidateId: text('Candidate id'), assessmentId: text('Assessment id'),
    status: { type: 'string', enum: ['in_progress', 'completed'], description: 'The progress after the start (a finished assessment stays completed)' },
  }),
  CompletedTest: object({ resultId: text('The new result'), assessmentCompleted: { type: 'boolean', description: 'True when this was the last test of the assessment' } }),
  UnlockedResult: object({
    resultId: text('Result id'), unlockedAt: time('The first unlock (an unlock again answers the same time)'),
    charged: { type: 'boolean', description: 'True when this unlock billed the candidate' },
  }),
};

const MESSAGING: Record<string, Schema> = {
  Email: object({ id: text('E-mail id'), to: text('Recipient, lower case'), subject: text('Subject'), text: text('The plain-text body'), sentAt: time('Domain time it was written to the outbox') }),
  DeliveryAttempt: object({
    at: time('Domain time the attempt started'),
    responseStatus: nullable('integer', 'The HTTP status answered; null when none came'),
    durationMs: integer('Milliseconds the attempt took'),
    error: nullable('string', 'null for a 2xx; `http_<status>`, `timeout`, `connection_failed`, or why the attempt was cut short'),
  }),
  WebhookDelivery: object({
    id: text('Delivery id (a resend is a new delivery)'),
    eventId: text('The event id: the envelope id and `X-Webhook-Id`'),
    event: { type: 'string', enum: [...WEBHOOK_EVENT_NAMES] },
    url: text('The address it was sent to', { format: 'uri' }),
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    attempts: integer('Tries so far, the first included (0: never sent)'),
    attemptLog: list(ref('DeliveryAttempt'), 'Every attempt, oldest first'),
    lastResponseStatus: nullable('integer', "The last attempt's HTTP status"),
    lastError: nullable('string', "The last attempt's error, or `endpoint_disabled` for a delivery never sent to a disabled address"),
    createdAt: time('Domain time the delivery was created'),
    updatedAt: time('Domain time of its last change'),
  }),
  DeliveryPageMeta: object({ nextCursor: nullable('string', 'Pass unchanged as `cursor` for the next page; null at the end') }),
  ResentDelivery: object({ id: text('The new delivery') }),
  RecoveredDeliveries: object({ count: integer('Deliveries queued, one per event of the window') }),
};

const OPERATIONS: Record<string, Schema> = {
  ClockNow: object({ now: time('The domain time after the move') }),
  EventMetadata: {
    type: 'object',
    required: ['correlationId', 'causationId', 'actor', 'requestId', 'time'],
    properties: {
      correlationId: text('X-Correlation-Id of the request, or its request id'),
      causationId: nullable('string', 'The event that caused this one, if any'),
      actor: text('API key id, `internal` or `system`'),
      requestId: text('X-Request-Id of the request that caused it'),
      time: time('Domain time the command was decided'),
      schemaVersion: { type: 'integer', minimum: 2, description: 'The version of `data` as written; absent for version 1' },
    },
  },
  StreamEvent: object({
    id: text('Event id (UUID)'),
    streamId: text('`workspace-{id}`, `assessment-{id}` or `candidate-{id}`'),
    revision: integer('Place in the stream, from 0'),
    position: { ...POSITION, description: 'Place in the global order, a decimal integer' },
    type: text('Event type, past tense (`CandidateRegistered`)'),
    data: { type: 'object', description: 'The event as recorded (personal data of an erased person shows as erased)' },
    metadata: ref('EventMetadata'),
    recordedAt: time('Wall-clock time the store recorded it'),
  }),
  LogSeal: withOptional(object({
    sequence: integer('1 for the first seal', 1),
    afterPosition: nullable('string', 'Exclusive start of the sealed stretch; null for the first seal', { pattern: '^[0-9]+$' }),
    toPosition: { ...POSITION, description: 'Last position sealed' },
    eventCount: integer('Events sealed'),
    eventsDigest: text('SHA-256 (hex) over every sealed event'),
    previousSignature: nullable('string', "The previous seal's signature; null for the first"),
    link: text('The link of the event at `toPosition` in the chain over the global order; absent in seals made before the links'),
    sealedAt: time('When it was sealed'),
    publicKey: text('Ed25519 public key (base64url) that checks the signature'),
    signature: text('Ed25519 signature (base64url)'),
  }, 'A signed statement over a stretch of the global order (docs/audit.md)'), ['link']),
  Health: object({
    status: { type: 'string', enum: ['ok', 'degraded'], description: '`degraded` while Redis cannot be reached' },
    version: text('The release (package.json)'),
    apiVersion: text('The version of the public API contract served (the public document\'s info.version)'),
    eventStore: object({ headPosition: nullable('string', 'The last position of the log; null while it is empty', { pattern: '^[0-9]+$' }) }),
    readModels: { type: 'object', additionalProperties: nullable('string', 'Checkpoint position'), description: 'Each read model\'s checkpoint' },
    redis: { type: 'string', enum: ['ok', 'unreachable'] },
    queues: {
      type: ['object', 'null'],
      additionalProperties: object({ waiting: integer('Jobs waiting'), active: integer('Jobs running'), delayed: integer('Jobs waiting for their time'), failed: integer('Jobs failed for good') }),
      description: 'Job counts per queue; null when they cannot be read within a second or no messaging runs here',
    },
  }),
};

export const INTERNAL_SCHEMAS: Record<string, Schema> = { ...VIEW_SCHEMAS, ...WORKSPACES, ...CANDIDATES, ...MESSAGING, ...OPERATIONS };

/** `{ data }` and `{ data, meta }` around a component. */
export const single = (name: string): Schema => object({ data: ref(name) });
export const listOf = (name: string, meta?: string): Schema => object({ data: { type: 'array', items: ref(name) }, ...(meta ? { meta: ref(meta) } : {}) });
