import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startHttpApp } from '#runtime/http-apps.js';
import type { Infrastructure } from '#runtime/infrastructure.js';
import { refuseUnknownPathsBeforeSignIn } from './auth/unknown-paths.js';
import { mountQueueDashboard } from './dashboard/queue-dashboard.js';
import { mountInternalDocument } from './openapi/internal-document.js';
import { SimulatorModule } from './simulator.module.js';

/** The internal application on INTERNAL_PORT, with its OpenAPI document and the queue dashboard. */
export const startInternalApp = (infra: Infrastructure): Promise<NestFastifyApplication> =>
  startHttpApp(infra, SimulatorModule, {
    port: infra.config.internalPort, altBasePath: '', legacy: false, name: 'internal', strictText: true,
    configure: async (instance, app) => {
      refuseUnknownPathsBeforeSignIn(instance, app, infra.config.internalToken);
      mountInternalDocument(app);
      if (infra.messaging) await mountQueueDashboard(instance, infra.messaging, infra.config.internalToken);
    },
  });
