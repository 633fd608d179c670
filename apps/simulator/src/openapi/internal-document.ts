import { Controller, Get, Injectable, type INestApplication, type Type, UseGuards, applyDecorators } from '@nestjs/common';
import { ApiBody, ApiExcludeController, ApiOperation, ApiResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { fixOpenApi30Schemas } from '#http';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';

export const INTERNAL_BEARER = 'internalToken';

/**
 * The internal application's own OpenAPI 3.1 document, produced from its controllers and DTOs. It
 * is built once the application exists (see `mountInternalDocument`) and served behind the token.
 */
export const buildInternalDocument = (app: INestApplication): Record<string, unknown> => {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Hiring-test internal application')
    .setVersion('1.0.0')
    .setDescription('The simulator, integrations page and audit views on INTERNAL_PORT. Every request carries `Authorization: Bearer <INTERNAL_TOKEN>`.')
    .addSecurity(INTERNAL_BEARER, { type: 'http', scheme: 'bearer', description: 'The INTERNAL_TOKEN' })
    .addSecurityRequirements(INTERNAL_BEARER)
    .build();
  const document = SwaggerModule.createDocument(app, config) as unknown as Record<string, unknown>;
  fixOpenApi30Schemas(document);
  return document;
};

@Injectable()
export class InternalDocument {
  document: Record<string, unknown> = {};
}

@Controller('internal/openapi.json')
@ApiExcludeController()
@UseGuards(InternalTokenGuard)
export class InternalDocumentController {
  constructor(private readonly holder: InternalDocument) {}

  @Get()
  document() {
    return this.holder.document;
  }
}

export const mountInternalDocument = (app: INestApplication): void => {
  app.get(InternalDocument).document = buildInternalDocument(app);
};

const DATA = { type: 'object', required: ['data'], properties: { data: {} } };
const ERROR = {
  type: 'object', required: ['error'],
  properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } } },
};
const REFUSALS: Record<number, string> = {
  400: 'invalid_json: the body is not a JSON object, or nested deeper than 64 levels; invalid_parameter: a query parameter holds U+0000 or an unpaired surrogate, or the query string is over the limits on one request (8,192 characters, 100 parameters)',
  401: 'unauthorized: the internal token is missing or wrong',
  413: 'payload_too_large: the body is over 1 MB',
  404: 'not_found',
  409: 'invalid_state, already_completed, live_candidate, sandbox_candidate or not_a_test_candidate',
  422: 'validation_failed (also a body holding U+0000 or an unpaired surrogate, or over the limits on one request: 50,000 values, 10,000 entries in one list or object, 10,000 characters in one string)',
  500: 'server_error',
};

/**
 * One internal route in the document: its success, its refusals (400, 401 and 500 on every route:
 * a query string holding U+0000 is refused on any route) and its body (400, 413 and 422 with one).
 */
export const InternalRoute = (summary: string, success: number, refusals: number[] = [], body?: Type<unknown>) =>
  applyDecorators(
    ApiOperation({ summary }),
    ApiResponse({ status: success, description: success === 204 ? 'Done' : '`{ data }`', ...(success === 204 ? {} : { content: { 'application/json': { schema: DATA } } }) }),
    ...[...refusals, 400, 401, 500].map((status) => ApiResponse({ status, description: REFUSALS[status] ?? '', content: { 'application/json': { schema: ERROR } } })),
    ...(body ? [ApiBody({ type: body }), ...[400, 413, 422].map((status) => ApiResponse({ status, description: REFUSALS[status] ?? '', content: { 'application/json': { schema: ERROR } } }))] : []),
  );
