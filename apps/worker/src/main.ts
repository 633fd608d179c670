import 'reflect-metadata';
import { hostname } from 'node:os';
import { loadConfig, createLogger } from '#platform';
import { ClusterMembership, clusterSettings } from '#runtime/cluster-settings.js';
import { createInfrastructure } from '#runtime/create-infrastructure.js';
import { FOLLOWERS_LEASE, Lease } from '#runtime/lease.js';
import { startMessagingFor } from '#runtime/messaging-wiring.js';
import { startProcessEndpoints } from '#runtime/observability/endpoints.js';
import { runMain, stopOnSignals } from '#runtime/process-main.js';

/**
 * The webhook and e-mail workers and, under the followers' lease, the once-per-deployment loops
 * (projections, dispatcher, sealer). Start as many as needed: another takes the lease within about
 * 7 s when its holder dies, at once when it stops cleanly.
 */
runMain(async () => {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'worker');
  const infra = await createInfrastructure(config, logger, { followers: 'leased' });
  const membership = await ClusterMembership.join(infra.sidePool, `${hostname()}:${process.pid}`, clusterSettings(config, infra.serviceSecret), logger)
    .catch(async (error: unknown) => {
      await infra.stop();
      throw error;
    });
  const messaging = await startMessagingFor(infra, { runWorkers: true, dispatcherUnderLease: true });
  const followers = infra.followers;
  const dispatcher = messaging.dispatcher;
  if (followers === null || dispatcher === null) throw new Error('a worker runs the followers and the dispatcher');
  const lease = new Lease(infra.sidePool, FOLLOWERS_LEASE, logger, {
    acquired: async (held) => {
      await followers.start();
      await dispatcher.start({ lease: held.name, holder: held.holder, fence: held.fence });
    },
    lost: async () => {
      await dispatcher.stop();
      await followers.stop();
    },
  });
  lease.start();
  // Stops run before the rest of the process: the loops stop (checkpoints saved), then the lease is released.
  const stopInfra = infra.stop;
  infra.stop = async () => {
    await lease.stop();
    await membership.leave();
    await stopInfra();
  };
  logger.info('worker running');
  stopOnSignals(logger, infra, [await startProcessEndpoints(infra)]);
});
