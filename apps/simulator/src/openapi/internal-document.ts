import { Controller, Get, Injectable, type INestApplication, UseGuards } from '@nestjs/common';
import { ApiExcludeController, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { fixOpenApi30Schemas } from '../../../../libs/http/src/index.js';
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
