import 'reflect-metadata';
import type { Logger } from 'pino';
import { startPublicApi } from '../../api/src/public-api.js';
import { startInternalApp } from '../../simulator/src/internal-app.js';
import type { ServiceConfig } from '#platform';
import { createInfrastructure } from '#runtime/create-infrastructure.js';
import { ensureDemoWorkspace } from '#runtime/demo-workspace.js';
import { startMessagingFor } from '#runtime/messaging-wiring.js';
import { stopOnSignals } from '#runtime/process-main.js';
import { printBanner } from './banner.js';

/** The whole service in one process (API, internal app, projections, dispatcher, workers); the public API last: once it answers, all of it is started. */
export const startStandalone = async (config: ServiceConfig, logger: Logger): Promise<void> => {
  const infra = await createInfrastructure(config, logger, { followers: 'run', publicApi: true });
  await startMessagingFor(infra, { runWorkers: true });
  const internal = await startInternalApp(infra);
  const demo = process.env.DEMO_WORKSPACE === 'false' ? null : await ensureDemoWorkspace(infra, internal);
  const api = await startPublicApi(infra);
  printBanner(config, demo);
  stopOnSignals(logger, infra, [api, internal]);
};
