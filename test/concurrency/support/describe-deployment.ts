import { type WebhookReceiver, startWebhookReceiver } from '../../support/messaging-receivers.js';
import type { Deployment } from './deployment.js';
import { runSeeds } from './run-seed.js';
import { type TierSettings, tierSettings, testTimeout } from './settings.js';

/**
 * One deployment under the tier: started once, every seed's workload run against it and its
 * invariants checked (run-seed.ts), then stopped and cleaned up.
 */
export const describeDeployment = (
  title: string, start: (options: { simulatedClock: boolean; faults: boolean }) => Promise<Deployment>, overrides: Partial<TierSettings> = {},
): void => {
  describe(title, () => {
    const settings = { ...tierSettings(), ...overrides };
    let receiver: WebhookReceiver;
    let deployment: Deployment | undefined;

    beforeAll(async () => {
      const started = Date.now();
      receiver = await startWebhookReceiver();
      deployment = await start({ simulatedClock: settings.soak, faults: settings.faults });
      process.stderr.write(`concurrency tier: ${deployment.name} started in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }, 120_000);

    afterAll(async () => {
      const stopping = Date.now();
      await deployment?.stop();
      await receiver?.close();
      process.stderr.write(`concurrency tier: stopped and cleaned up in ${((Date.now() - stopping) / 1000).toFixed(1)} s\n`);
    }, 60_000);

    it(`keeps every invariant under ${settings.clients} concurrent clients${settings.faults ? ', with faults injected' : ''}`, async () => {
      await runSeeds(settings, deployment as Deployment, receiver);
    }, testTimeout(settings));
  });
};
