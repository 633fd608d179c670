import { afterAll, beforeAll, describe } from '@jest/globals';
import { appendContract } from './append.contract.js';
import type { ContractCapabilities, ContractSubject } from './contract-support.js';
import { subscriptionContract } from './subscription.contract.js';

export type { ContractCapabilities, ContractSubject } from './contract-support.js';

/**
 * The behaviour every EventStore adapter must show, run by one spec file per adapter. Each test
 * works on its own randomly prefixed streams, so one store serves the whole suite (and a shared
 * EventStoreDB server with older events in its log still passes).
 */
export function runEventStoreContract(
  name: string,
  factory: () => Promise<ContractSubject>,
  capabilities: ContractCapabilities = { atomicMultiStreamAppend: true },
): void {
  describe(`EventStore contract: ${name}`, () => {
    let subject: ContractSubject | null = null;

    beforeAll(async () => {
      subject = await factory();
    }, 30_000);

    afterAll(async () => {
      await subject?.close();
    }, 30_000);

    const context = {
      capabilities,
      subject(): ContractSubject {
        if (subject === null) throw new Error('the store under test did not start');
        return subject;
      },
    };
    appendContract(context);
    subscriptionContract(context);
  });
}
