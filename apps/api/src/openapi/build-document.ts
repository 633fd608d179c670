import { type INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { MAX_ID_LENGTH, fixOpenApi30Schemas } from '#http';
import { API_VERSION } from '#platform';
import { addToolDetails } from './document-details.js';
import { BASIC_SCHEME, BEARER_SCHEME } from './operation.decorators.js';
import { RESPONSE_SCHEMAS, errorSchema } from './response-schemas.js';
import { WEBHOOK_SIGNATURE_SCHEME, webhookSchemas, webhooks } from './webhooks.js';

type Json = Record<string, unknown>;

const DESCRIPTION = `The hiring-test platform's public API: create assessments from the test catalogue, invite
candidates by e-mail, and read candidates, results and finished assessments. Every request carries an
API key and its secret (\`Authorization: Bearer <key>:<secret>\`, or Basic). Every body is JSON: one
item is \`{ data }\`, a list \`{ data, meta }\`, an error \`{ error: { code, message } }\`. Guides: \`docs/\`
in the repository; the rendered reference: \`GET /docs\`.

Some requests are refused before the credential is read, whatever it is: a path no route serves, or
an id longer than ${MAX_ID_LENGTH} characters (404 \`not_found\`); a query string over 8,192 characters or 100
parameters (400 \`invalid_parameter\`); a body over 1 MiB (413 \`payload_too_large\`); a request line and
headers over 16 KiB (431 \`request_too_large\`); a request that does not arrive whole in time (408
\`request_timeout\`). Every other refusal comes after authentication (401) and the rate limit (429).`;

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    required: true,
    description: 'The id of this request (the one sent, when it is 1 to 128 printable characters, or a new one; always a new one on a 408 or 431, whose headers were not read); quote it when reporting a problem',
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { required: true, description: 'Requests allowed per minute with this key (120)', schema: { type: 'integer', examples: [120] } },
  'X-RateLimit-Remaining': { required: true, description: 'Requests left in the current sliding 60-second window', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { required: true, description: 'Whole seconds to wait before retrying, at least 1', schema: { type: 'integer', minimum: 1 } },
  'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
};

const header = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

const json = (schema: Json): Json => ({ 'application/json': { schema } });

/** Adds a refusal code every route can give (the limits on one request) to an operation's answers of one status. */
const withCode = (responses: Record<string, Json>, status: string, code: string, note: string): void => {
  const existing = responses[status];
  if (!existing) {
    responses[status] = { description: `${code}: ${note}`, content: json(errorSchema([code])) };
    return;
  }
  const codes = (((((existing['content'] as Json)['application/json'] as Json)['schema'] as Json)['properties'] as Json)['error'] as Json)['properties'] as Json;
  const allowed = (codes['code'] as Json)['enum'] as string[];
  if (!allowed.includes(code)) {
    allowed.push(code);
    existing['description'] = `${String(existing['description'])}, ${code}`;
  }
  existing['description'] = `${String(existing['description'])} (${code} also: ${note})`;
};

/** Refused by Node's HTTP parser before the path is known (fastify-setup.ts): one component each, on every operation. */
const beforeAnyRoute = (name: string, code: string, why: string) => ({
  name,
  answer: {
    description: `${code}: ${why}. Answered before its path is read: in this shape on every path, the original endpoint included`,
    headers: { 'X-Request-Id': header('X-Request-Id') },
    content: json(errorSchema([code])),
  },
});
const BEFORE_ANY_ROUTE: Record<string, { name: string; answer: Json }> = {
  '408': beforeAnyRoute('RequestTimeout', 'request_timeout',
    'the request did not arrive whole within HTTP_REQUEST_TIMEOUT_MS (30 s; its headers within 10 s)'),
  '431': beforeAnyRoute('RequestTooLarge', 'request_too_large',
    'the request line and headers together are over 16 KiB (a long query string, large headers)'),
};

/** Which answers carry the rate-limit headers: those after the key is counted, and maybe those that can come before. */
const rateLimitHeaders = (status: string, legacy: boolean): 'required' | 'optional' | 'absent' => {
  if (status === '401' || (legacy && status === '403')) return 'absent';
  // A 400, 404, 413 or 500 may come before the credential is read; a 429 may refuse a key over its
  // limit (headers, Remaining 0) or an address's failed authentications (no key: no headers).
  return ['400', '404', '413', '429', '500'].includes(status) ? 'optional' : 'required';
};

const RATE_LIMIT_ON_429 = 'Present (Remaining 0) when the key is over its limit; absent when the 429 refuses an address\'s failed authentications';

/** The refusals any authenticated operation can give, and the headers every answer carries. */
const completeOperation = (path: string, operation: Json): void => {
  const legacy = path === '/candidates';
  const responses = (operation['responses'] ??= {}) as Record<string, Json>;
  for (const [status, { name }] of Object.entries(BEFORE_ANY_ROUTE)) responses[status] ??= { $ref: `#/components/responses/${name}` };
  if (legacy) {
    responses['429'] ??= { description: 'rate_limited', content: json({ $ref: '#/components/schemas/LegacyError' }) };
    responses['500'] ??= { description: 'server_error', content: json({ $ref: '#/components/schemas/LegacyError' }) };
  } else {
    if (operation['requestBody']) responses['413'] ??= { description: 'payload_too_large: the body is over 1 MB', content: json(errorSchema(['payload_too_large'])) };
    withCode(responses, '400', 'invalid_parameter', 'a query string over 8,192 characters or 100 parameters');
    if (operation['requestBody']) withCode(responses, '422', 'validation_failed', 'a body over 50,000 values, 10,000 entries in one list or object, or 10,000 characters in one string');
    responses['401'] ??= { description: 'unauthorized', content: json(errorSchema(['unauthorized'])) };
    responses['429'] ??= {
      description: 'rate_limited: more than 120 requests in a minute with this key, or, whatever the credential, past AUTH_FAILURES_PER_MINUTE failed authentications from this address',
      content: json(errorSchema(['rate_limited'])),
    };
    responses['500'] ??= { description: 'server_error', content: json(errorSchema(['server_error'])) };
  }
  for (const [status, response] of Object.entries(responses)) {
    if (response['$ref'] !== undefined) continue;
    const headers = (response['headers'] ??= {}) as Json;
    headers['X-Request-Id'] = header('X-Request-Id');
    const rateLimit = rateLimitHeaders(status, legacy);
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining']) {
      if (rateLimit === 'required') headers[name] = header(name);
      else if (rateLimit === 'optional') {
        const note = status === '429' ? `${String(HEADERS[name]?.['description'])}. ${RATE_LIMIT_ON_429}` : HEADERS[name]?.['description'];
        headers[name] = { ...HEADERS[name], required: false, description: note };
      }
    }
    if (status === '429') headers['Retry-After'] = header('Retry-After');
  }
};

const sortedResponses = (operation: Json): void => {
  const responses = operation['responses'] as Json;
  operation['responses'] = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
};

/**
 * The OpenAPI 3.1 document of the public API: @nestjs/swagger's, from the controllers and DTOs,
 * finished here. `app` only needs the module graph, so a preview application writes docs/openapi.json.
 */
export const buildPublicDocument = (app: INestApplication, altBasePath: string): Json => {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Hiring-Test Assessment API')
    .setVersion(API_VERSION)
    .setDescription(DESCRIPTION)
    .addServer('/', 'The base address ({base_url})')
    .addServer(altBasePath, 'The alternative base address ({alt_base_url}): the same paths under ALT_BASE_PATH')
    .addSecurity(BEARER_SCHEME, { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <key>:<secret>`' })
    .addSecurity(BASIC_SCHEME, { type: 'http', scheme: 'basic', description: '`Authorization: Basic <base64 of key:secret>`' })
    .addSecurity(WEBHOOK_SIGNATURE_SCHEME.name, WEBHOOK_SIGNATURE_SCHEME.scheme)
    .build();
  const document = SwaggerModule.createDocument(app, config) as unknown as Json;
  const paths = document['paths'] as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(item)) {
      completeOperation(path, operation);
      sortedResponses(operation);
    }
  }
  const components = (document['components'] ??= {}) as Json;
  components['schemas'] = { ...(components['schemas'] as Json | undefined), ...RESPONSE_SCHEMAS, ...webhookSchemas() };
  components['headers'] = HEADERS;
  components['responses'] = Object.fromEntries(Object.values(BEFORE_ANY_ROUTE).map(({ name, answer }) => [name, answer]));
  document['webhooks'] = webhooks();
  addToolDetails(document);
  fixOpenApi30Schemas(document);
  return document;
};
