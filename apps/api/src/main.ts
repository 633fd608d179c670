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
  // As the internal application does: e-mails are recorded in the append transactions, and a write
  // waits for the worker's dispatcher only when a webhook is due (messaging-wiring.ts). Waiting for
  // the dispatcher at every write, polled every 10 ms, halved the invitations a second.
  await startMessagingFor(infra, { runWorkers: false });
  const app = await startPublicApi(infra);
  logger.info({ port: config.port }, 'public API listening');
  stopOnSignals(logger, infra, [app]);
});
