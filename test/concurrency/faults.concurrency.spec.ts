import { describeDeployment } from './support/describe-deployment.js';
import { startPostgresDeployment } from './support/postgres-deployment.js';

/**
 * The PostgreSQL deployment's workload with faults injected at moments drawn from the seed
 * (support/faults.ts): kill -9 of an API process (twice), of the worker and of the internal
 * application, each started again at once on its port; the service's database connections
 * terminated (twice); its own Redis restarted empty. Clients retry what a fault cost them as the API
 * document says (support/recorder.ts); afterwards every invariant of the tier must hold, the rebuild
 * comparison included, and no process may have exited on its own. One seed of 500 operations unless
 * CONCURRENCY_SEED(S) / CONCURRENCY_SOAK say otherwise.
 */
describeDeployment('concurrency with faults: PostgreSQL, two API processes, a worker and the internal application', startPostgresDeployment, {
  faults: true,
  ...(process.env.CONCURRENCY_SOAK ? {} : { operations: 500 }),
});
