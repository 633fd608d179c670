import { describeDeployment } from './support/describe-deployment.js';
import { startEmbeddedDeployment } from './support/embedded-deployment.js';

/**
 * Many concurrent clients on the embedded store in one process (`npm start`): a seeded, randomized
 * workload, then the invariants checked from the API, the log, the database and Redis
 * (test/concurrency/support/run-seed.ts). CONCURRENCY_SEED, CONCURRENCY_SEEDS, CONCURRENCY_SOAK: see settings.ts.
 */
describeDeployment('concurrency: the embedded store in one process', startEmbeddedDeployment);
