import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mountPublicDocs } from '#http';
import { startHttpApp } from '#runtime/http-apps.js';
import type { Infrastructure } from '#runtime/infrastructure.js';
import { readSessionsOn } from '#runtime/public-reads.js';
import { ApiModule } from './api.module.js';
import { buildPublicDocument } from './openapi/build-document.js';
import { warmUpPublicApi } from './warm-up.js';

/** The public API on PORT (and ALT_BASE_PATH), with its OpenAPI document and docs page. */
export const startPublicApi = (infra: Infrastructure): Promise<NestFastifyApplication> =>
  startHttpApp(infra, ApiModule, {
    port: infra.config.port, altBasePath: infra.config.altBasePath, legacy: true, name: 'api', failFastOnDatabaseOutage: true,
    configure: (instance, app) => {
      readSessionsOn(instance, infra.publicReads);
      mountPublicDocs(instance, buildPublicDocument(app, infra.config.altBasePath || '/'));
    },
    warmUp: warmUpPublicApi,
  });
