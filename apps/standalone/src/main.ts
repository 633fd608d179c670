import 'reflect-metadata';
import { startPublicApi } from '../../api/src/public-api.js';
import { startInternalApp } from '../../simulator/src/internal-app.js';
import { loadConfig } from '../../../libs/platform/src/config/config.js';
import { createLogger } from '../../../libs/platform/src/logging/logger.js';
import { createInfrastructure } from '../../../libs/runtime/src/create-infrastructure.js';
import { ensureDemoWorkspace } from '../../../libs/runtime/src/demo-workspace.js';
import { ensureRedis } from '../../../libs/runtime/src/local-redis.js';
import { startMessagingFor } from '../../../libs/runtime/src/messaging-wiring.js';
import { runMain, stopOnSignals } from '../../../libs/runtime/src/process-main.js';
import { printBanner } from './banner.js';

/** `npm start`: the whole service in one process (API, internal app, projections, dispatcher, workers). */
runMain(async () => {
  const logger = createLogger(loadConfig().logLevel, 'standalone');
  // Before anything slow: without Redis and without redis-server the start is refused at once.
  const { config } = await ensureRedis(loadConfig(), logger);
  const infra = await createInfrastructure(config, logger, { runProjections: true });
  await startMessagingFor(infra, { runWorkers: true });
  const api = await startPublicApi(infra);
  const internal = await startInternalApp(infra);
  const demo = process.env.DEMO_WORKSPACE === 'false' ? null : await ensureDemoWorkspace(infra, internal);
  printBanner(config, demo);
  stopOnSignals(logger, infra, [api, internal]);
});
