import { type WebhookReceiver, startWebhookReceiver } from '../support/messaging-receivers.js';
import type { Deployment } from './support/deployment.js';
import { startEmbeddedDeployment } from './support/embedded-deployment.js';
import { runSeeds } from './support/run-seed.js';
import { tierSettings, testTimeout } from './support/settings.js';

/**
 * Many concurrent clients on the embedded store in one process (`npm start`): a seeded, randomized
 * workload, then the invariants checked from the API, the log, the database and Redis
 * (test/concurrency/support/run-seed.ts). CONCURRENCY_SEED, CONCURRENCY_SEEDS, CONCURRENCY_SOAK: see settings.ts.
 */
describe('concurrency: the embedded store in one process', () => {
  const settings = tierSettings();
  let receiver: WebhookReceiver;
  let deployment: Deployment | undefined;

  beforeAll(async () => {
    const started = Date.now();
    receiver = await startWebhookReceiver();
    deployment = await startEmbeddedDeployment({ simulatedClock: settings.soak });
    process.stderr.write(`concurrency tier: ${deployment.name} started in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }, 120_000);

  afterAll(async () => {
    const stopping = Date.now();
    await deployment?.stop();
    await receiver?.close();
    process.stderr.write(`concurrency tier: stopped and cleaned up in ${((Date.now() - stopping) / 1000).toFixed(1)} s\n`);
  }, 60_000);

  it(`keeps every invariant under ${settings.clients} concurrent clients`, async () => {
    await runSeeds(settings, deployment as Deployment, receiver);
  }, testTimeout(settings));
});
