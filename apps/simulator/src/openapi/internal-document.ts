import { Get, type INestApplication } from '@nestjs/common';
import { ApiExcludeController, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { fixOpenApi30Schemas } from '#http';
import { InternalController } from '../auth/internal-token.guard.js';
import { errorSchema } from './internal-route.js';
import { INTERNAL_EXAMPLES } from './internal-examples.js';
import { INTERNAL_SCHEMAS } from './internal-schemas.js';

export const INTERNAL_BEARER = 'internalToken';

type Json = Record<string, unknown>;

const DESCRIPTION = `The internal application on INTERNAL_PORT (3100 by default): what the product does inside the
application (workspaces and keys, registrations, finished tests, unlocks, closing), the webhook settings
and delivery log, the e-mail outbox and the audit views. Every request carries
\`Authorization: Bearer <INTERNAL_TOKEN>\`, this document's included. Bodies and answers are JSON in the
public API's shapes: \`{ data }\`, \`{ data, meta }\`, \`{ error: { code, message } }\`. Every write answers once
what it changed can be read through the public API.`;

const TAGS = [
  { name: 'Workspaces', description: 'Workspaces, API keys, custom tests and billing' },
  { name: 'Webhooks', description: 'Webhook settings, the delivery log, resends and recoveries of a window' },
  { name: 'Assessments', description: 'Appending a custom test, closing' },
  { name: 'Candidates', description: "The candidate's side (registering, starting, finishing tests), unlocking results, deleting test candidates" },
  { name: 'Outbox', description: 'The e-mails the service sent' },
  { name: 'Audit', description: 'The event log as auditors read it: streams, seals, the export, an answer as of a past time' },
  { name: 'Operations', description: 'Health and the simulated clock' },
];

/** Why each code comes, written once for every route that gives it (docs/operations.md: the limits on one request). */
const WHY: Record<string, string> = {
  invalid_parameter: 'a query parameter holds U+0000 or an unpaired surrogate, or the query string is over the limits on one request (8,192 characters, 100 parameters)',
  invalid_json: 'the body is not UTF-8, not a JSON object where one is read, or nested deeper than 64 levels',
  unauthorized: 'the internal token is missing or wrong',
  not_found: "an unknown id (a path id holding U+0000 included), or what the operation's description says",
  invalid_cursor: "the cursor was changed, or did not come from this list's `meta.nextCursor`",
  invalid_state: 'the state does not allow it (a closed assessment, past its deadline, not registered on it, a test not of it)',
  already_completed: 'the test was already finished',
  live_candidate: 'the address is a live candidate of the workspace',
  sandbox_candidate: 'the address is a test candidate of the workspace',
  not_a_test_candidate: 'only test (sandbox) candidates can be deleted',
  payload_too_large: 'the body is over 1 MB',
  validation_failed: 'the body breaks a rule (also: it holds U+0000 or an unpaired surrogate, or is over the limits on one request: 50,000 values, 10,000 entries in one list or object, 10,000 characters in one string)',
  server_error: 'the service failed, or its database or Redis cannot be reached (retry)',
};

const PARAMETERS: Record<string, string> = {
  workspaceId: 'Workspace id (`ws_…`)', apiKeyId: 'API key id (`key_…`)', assessmentId: 'Assessment id (`asm_…`)', candidateId: 'Candidate id (`cand_…`)',
  slug: 'Test slug, of a test of the assessment', resultId: 'Result id (`res_…`)', deliveryId: 'Delivery id (`whd_…`)',
  streamId: '`workspace-{id}`, `assessment-{id}` or `candidate-{id}`',
};
/** A real value of every parameter: the ids and query values of the requests the examples answer. */
const PARAMETER_EXAMPLES: Record<string, unknown> = {
  ...INTERNAL_EXAMPLES.parameters,
  to: INTERNAL_EXAMPLES.answers.listEmails.data[0]?.to,
  at: INTERNAL_EXAMPLES.answers.unlockResult.data.unlockedAt,
  mode: 'live',
  limit: 2,
  cursor: INTERNAL_EXAMPLES.answers.listWebhookDeliveries.meta.nextCursor,
  view: 'opened',
};

const codesOf = (response: Json): string[] | null => {
  const schema = ((response['content'] as Json | undefined)?.['application/json'] as Json | undefined)?.['schema'] as Json | undefined;
  const code = (((schema?.['properties'] as Json | undefined)?.['error'] as Json | undefined)?.['properties'] as Json | undefined)?.['code'] as Json | undefined;
  return Array.isArray(code?.['enum']) ? (code['enum'] as string[]) : null;
};

/** Adds codes to an operation's refusals of one status, beside the route's own; the description names why each comes. */
const refuse = (responses: Record<string, Json>, status: number, codes: string[]): void => {
  const existing = responses[String(status)];
  const all = [...new Set([...(existing ? codesOf(existing) ?? [] : []), ...codes])];
  const why = all.map((code) => (WHY[code] ? `${code}: ${WHY[code]}` : code));
  responses[String(status)] = { description: why.join('; '), content: { 'application/json': { schema: errorSchema(all) } } };
};

/**
 * The refusals every route can give, by what it takes: 400 invalid_parameter, 401 and 500 always;
 * with body bytes (POST, PUT, DELETE) 400 invalid_json and 413; with a body it reads 422; with a path
 * id 404. Parameters get a real example (path ids a description too); the answers are sorted by status.
 */
const completeOperation = (path: string, method: string, operation: Json): void => {
  const responses = (operation['responses'] ??= {}) as Record<string, Json>;
  const bodyBytes = ['post', 'put', 'delete'].includes(method);
  refuse(responses, 400, bodyBytes ? ['invalid_json', 'invalid_parameter'] : ['invalid_parameter']);
  refuse(responses, 401, ['unauthorized']);
  if (path.includes('{')) refuse(responses, 404, ['not_found']);
  if (bodyBytes) refuse(responses, 413, ['payload_too_large']);
  if (operation['requestBody']) refuse(responses, 422, ['validation_failed']);
  refuse(responses, 500, ['server_error']);
  operation['responses'] = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  for (const parameter of (operation['parameters'] ?? []) as Json[]) {
    const name = String(parameter['name']);
    if (parameter['in'] === 'path') parameter['description'] ??= PARAMETERS[name];
    if (PARAMETER_EXAMPLES[name] !== undefined) parameter['example'] = PARAMETER_EXAMPLES[name];
  }
};

/**
 * The internal application's own OpenAPI 3.1 document, produced from its controllers and DTOs, then
 * finished here: the answers' schemas, the refusals every route shares, tags and servers. It is built
 * once the application exists (see `mountInternalDocument`) and served behind the token.
 */
export const buildInternalDocument = (app: INestApplication): Json => {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Hiring-test internal application')
    .setVersion('1.0.0')
    .setDescription(DESCRIPTION)
    .addServer('/', 'The internal application (INTERNAL_PORT, 3100 by default)')
    .addSecurity(INTERNAL_BEARER, { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <INTERNAL_TOKEN>`' })
    .addSecurityRequirements(INTERNAL_BEARER)
    .build();
  // Tags are the document's own (TAGS), not one per controller class.
  const document = SwaggerModule.createDocument(app, config, { autoTagControllers: false }) as unknown as Json;
  for (const [path, item] of Object.entries(document['paths'] as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) completeOperation(path, method, operation);
  }
  document['tags'] = TAGS;
  const components = (document['components'] ??= {}) as Json;
  components['schemas'] = { ...(components['schemas'] as Json | undefined), ...INTERNAL_SCHEMAS };
  fixOpenApi30Schemas(document);
  return document;
};

@InternalController('internal/openapi.json')
@ApiExcludeController()
export class InternalDocumentController {
  /** Set by mountInternalDocument once the application exists. */
  document: Json = {};

  @Get()
  serve() {
    return this.document;
  }
}

export const mountInternalDocument = (app: INestApplication): void => {
  app.get(InternalDocumentController).document = buildInternalDocument(app);
};

