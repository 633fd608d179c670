import 'reflect-metadata';
import { loadConfig } from '../../../libs/platform/src/config/config.js';
import { createLogger } from '../../../libs/platform/src/logging/logger.js';
import { createInfrastructure } from '../../../libs/runtime/src/create-infrastructure.js';
import { startMessagingFor } from '../../../libs/runtime/src/messaging-wiring.js';
import { runMain, stopOnSignals } from '../../../libs/runtime/src/process-main.js';

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
  stopOnSignals(logger, infra, []);
});
