import { type INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { fixOpenApi30Schemas } from '#http';
import { BASIC_SCHEME, BEARER_SCHEME } from './operation.decorators.js';
import { RESPONSE_SCHEMAS, errorSchema } from './response-schemas.js';
import { webhookSchemas, webhooks } from './webhooks.js';

type Json = Record<string, unknown>;

const DESCRIPTION = `The hiring-test platform's public API: create assessments from the test catalogue, invite
candidates by e-mail, and read candidates, results and finished assessments. Every request carries an
API key and its secret (\`Authorization: Bearer <key>:<secret>\`, or Basic). Every body is JSON: one
item is \`{ data }\`, a list \`{ data, meta }\`, an error \`{ error: { code, message } }\`. Guides: \`docs/\`
in the repository; the rendered reference: \`GET /docs\`.`;

const HEADERS: Record<string, Json> = {
  'X-Request-Id': { required: true, description: 'The id of this request (the one sent, when it is 1 to 128 printable characters, or a new one); quote it when reporting a problem', schema: { type: 'string' } },
  'X-RateLimit-Limit': { required: true, description: 'Requests allowed per minute with this key (120)', schema: { type: 'integer', examples: [120] } },
  'X-RateLimit-Remaining': { required: true, description: 'Requests left in the current sliding 60-second window', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { required: true, description: 'Whole seconds to wait before retrying, at least 1', schema: { type: 'integer', minimum: 1 } },
  'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
};

const header = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

const json = (schema: Json): Json => ({ 'application/json': { schema } });

/**
 * Adds a refusal code to an operation's answers of one status, beside the codes its route gives
 * (the limits on one request hold for every route: docs/operations.md).
 */
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

/** The refusals any authenticated operation can give, and the headers every answer carries. */
const completeOperation = (path: string, operation: Json): void => {
  const legacy = path === '/candidates';
  const responses = (operation['responses'] ??= {}) as Record<string, Json>;
  if (legacy) {
    responses['429'] ??= { description: 'rate_limited', content: json({ $ref: '#/components/schemas/LegacyError' }) };
    responses['500'] ??= { description: 'server_error', content: json({ $ref: '#/components/schemas/LegacyError' }) };
  } else {
    if (operation['requestBody']) responses['413'] ??= { description: 'payload_too_large: the body is over 1 MB', content: json(errorSchema(['payload_too_large'])) };
    withCode(responses, '400', 'invalid_parameter', 'a query string over 8,192 characters or 100 parameters');
    if (operation['requestBody']) withCode(responses, '422', 'validation_failed', 'a body over 50,000 values, 10,000 entries in one list or object, or 10,000 characters in one string');
    responses['401'] ??= { description: 'unauthorized', content: json(errorSchema(['unauthorized'])) };
    responses['429'] ??= { description: 'rate_limited', content: json(errorSchema(['rate_limited'])) };
    responses['500'] ??= { description: 'server_error', content: json(errorSchema(['server_error'])) };
  }
  for (const [status, response] of Object.entries(responses)) {
    const headers = (response['headers'] ??= {}) as Json;
    headers['X-Request-Id'] = header('X-Request-Id');
    // Once the credential is accepted, every answer says how much of the rate limit is left. A
    // 400, 404, 413 or 500 may also come before that (an unreadable body, an id no route can hold).
    if (status !== '401' && !(legacy && status === '403')) {
      const optional = ['400', '404', '413', '500'].includes(status);
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining']) headers[name] = optional ? { ...HEADERS[name], required: false } : header(name);
    }
    if (status === '429') headers['Retry-After'] = header('Retry-After');
  }
};

const sortedResponses = (operation: Json): void => {
  const responses = operation['responses'] as Json;
  operation['responses'] = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
};

/**
 * The OpenAPI 3.1 document of the public API, produced from the controllers and their DTO classes
 * by @nestjs/swagger, then finished here: 3.0-isms fixed, the answers' schemas, common refusals
 * and headers, both base addresses and the webhooks. `app` only needs the module graph (a preview
 * application is enough), so the committed docs/openapi.json is written without starting anything.
 */
export const buildPublicDocument = (app: INestApplication, altBasePath: string): Json => {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Hiring-Test Assessment API')
    .setVersion('1.2.0')
    .setDescription(DESCRIPTION)
    .addServer('/', 'The base address ({base_url})')
    .addServer(altBasePath, 'The alternative base address ({alt_base_url}): the same paths under ALT_BASE_PATH')
    .addSecurity(BEARER_SCHEME, { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <key>:<secret>`' })
    .addSecurity(BASIC_SCHEME, { type: 'http', scheme: 'basic', description: '`Authorization: Basic <base64 of key:secret>`' })
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
  document['webhooks'] = webhooks();
  fixOpenApi30Schemas(document);
  return document;
};
