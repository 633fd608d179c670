import { describeDeployment } from './support/describe-deployment.js';
import { startPostgresDeployment } from './support/postgres-deployment.js';

/**
 * Many concurrent clients on PostgreSQL with two API processes (clients spread their calls over
 * both), one worker and the internal application: a seeded, randomized workload, then the
 * invariants checked from the API, the log, the database and Redis (test/concurrency/support/run-seed.ts).
 */
describeDeployment('concurrency: PostgreSQL, two API processes, a worker and the internal application', startPostgresDeployment);
