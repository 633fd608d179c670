import 'reflect-metadata';
import { createLogger, loadConfig } from '#platform';
import { createInfrastructure } from '#runtime/create-infrastructure.js';
import { startMessagingFor } from '#runtime/messaging-wiring.js';
import { runMain, stopOnSignals } from '#runtime/process-main.js';
import { startInternalApp } from './internal-app.js';

/** The internal application alone; it reads the outbox and delivery log, the worker process sends. */
runMain(async () => {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'simulator');
  const infra = await createInfrastructure(config, logger, { followers: 'none' });
  await startMessagingFor(infra, { runWorkers: false });
  const app = await startInternalApp(infra);
  logger.info({ port: config.internalPort, internalTokenGenerated: config.internalTokenGenerated }, 'internal application listening');
  stopOnSignals(logger, infra, [app]);
});
