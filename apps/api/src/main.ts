import 'reflect-metadata';
import { loadConfig, createLogger } from '#platform';
import { createInfrastructure } from '#runtime/create-infrastructure.js';
import { startMessagingFor } from '#runtime/messaging-wiring.js';
import { runMain, stopOnSignals } from '#runtime/process-main.js';
import { startPublicApi } from './public-api.js';

/** The public API alone (start as many as needed): projections and workers run in `apps/worker`. */
runMain(async () => {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'api');
  const infra = await createInfrastructure(config, logger, { followers: 'none', publicApi: true });
  // E-mails are recorded in the append transactions; a write waits for the worker's dispatcher only
  // when a webhook is due (waiting at every write, polled every 10 ms, halved the invitations a second).
  await startMessagingFor(infra, { runWorkers: false });
  const app = await startPublicApi(infra);
  logger.info({ port: config.port }, 'public API listening');
  stopOnSignals(logger, infra, [app]);
});
