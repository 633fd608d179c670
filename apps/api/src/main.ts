import 'reflect-metadata';
import { loadConfig } from '#platform';
import { createLogger } from '#platform';
import { createInfrastructure } from '#runtime/create-infrastructure.js';
import { PolledPosition } from '#runtime/read-side.js';
import { DispatchCheckpoints, DISPATCHER_NAME } from '#messaging';
import { runMain, stopOnSignals } from '#runtime/process-main.js';
import { startPublicApi } from './public-api.js';

/** The public API alone (start as many as needed): projections and workers run in `apps/worker`. */
runMain(async () => {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'api');
  const infra = await createInfrastructure(config, logger, { runProjections: false });
  const dispatched = new DispatchCheckpoints(infra.sidePool, 'messaging');
  infra.readSide.add(new PolledPosition(() => dispatched.read(DISPATCHER_NAME).catch(() => null)));
  const app = await startPublicApi(infra);
  logger.info({ port: config.port }, 'public API listening');
  stopOnSignals(logger, infra, [app]);
});
