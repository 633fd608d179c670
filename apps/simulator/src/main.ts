import 'reflect-metadata';
import { loadConfig } from '../../../libs/platform/src/config/config.js';
import { createLogger } from '../../../libs/platform/src/logging/logger.js';
import { createInfrastructure } from '../../../libs/runtime/src/create-infrastructure.js';
import { startMessagingFor } from '../../../libs/runtime/src/messaging-wiring.js';
import { runMain, stopOnSignals } from '../../../libs/runtime/src/process-main.js';
import { startInternalApp } from './internal-app.js';

/** The internal application alone; it reads the outbox and delivery log, the worker process sends. */
runMain(async () => {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'simulator');
  const infra = await createInfrastructure(config, logger, { runProjections: false });
  await startMessagingFor(infra, { runWorkers: false });
  const app = await startInternalApp(infra);
  logger.info({ port: config.internalPort, internalTokenGenerated: config.internalTokenGenerated }, 'internal application listening');
  stopOnSignals(logger, infra, [app]);
});
