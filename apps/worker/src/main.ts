import 'reflect-metadata';
import { loadConfig } from '#platform';
import { createLogger } from '#platform';
import { createInfrastructure } from '#runtime/create-infrastructure.js';
import { startMessagingFor } from '#runtime/messaging-wiring.js';
import { startProcessEndpoints } from '#runtime/observability/endpoints.js';
import { runMain, stopOnSignals } from '#runtime/process-main.js';

/**
 * Projections (log -> read models, with checkpoints), the dispatcher (log -> BullMQ jobs) and the
 * webhook and e-mail workers. Several can run: BullMQ shares the jobs; the projection runner and the
 * dispatcher are safe to run twice (checkpoints are compared on write, every side effect has a stable id).
 */
runMain(async () => {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'worker');
  const infra = await createInfrastructure(config, logger, { runProjections: true });
  await startMessagingFor(infra, { runWorkers: true });
  logger.info('worker running');
  stopOnSignals(logger, infra, [await startProcessEndpoints(infra)]);
});
