import { isDeepStrictEqual } from 'node:util';
import type { ReceivedWebhook } from '../../support/messaging-receivers.js';
import type { Deployment } from './deployment.js';
import type { Findings } from './findings.js';

const SETTLE_MS = 60_000;
const POLL_MS = 250;

type Health = {
  eventStore: { headPosition: string | null };
  readModels: Record<string, string | null>;
  queues: Record<string, { waiting: number; active: number; delayed: number }> | null;
};

/** The hourly delivery-log purge is always scheduled: only the queues of side effects must be empty. */
const SIDE_EFFECT_QUEUES = ['webhooks', 'email'];

const quiet = (health: Health): boolean =>
  Object.values(health.readModels).every((position) => position === health.eventStore.headPosition)
  && Object.entries(health.queues ?? {}).every(([name, queue]) => !SIDE_EFFECT_QUEUES.includes(name) || queue.waiting + queue.active + queue.delayed === 0);

/**
 * Waits until the service is quiet: two health answers in a row agree, every read model has reached
 * the head of the log and no queue holds work. Bounded: a service that never settles is a finding.
 */
export const settle = async (deployment: Deployment, findings: Findings): Promise<void> => {
  const deadline = Date.now() + SETTLE_MS;
  let previous: Health | null = null;
  for (;;) {
    const health = await fetch(`${deployment.internalUrl()}/internal/health`, { headers: { authorization: `Bearer ${deployment.internalToken()}` } })
      .then(async (response) => (response.status === 200 ? ((await response.json()) as { data: Health }).data : null), () => null);
    if (health !== null && previous !== null && quiet(health) && isDeepStrictEqual(health, previous)) return;
    if (Date.now() > deadline) {
      findings.add('the service settles after the workload', `not quiet after ${SETTLE_MS / 1000} s: ${JSON.stringify(health)}`);
      return;
    }
    previous = health;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};

/** Waits (bounded) until every expected event id has reached the receiver at least once. */
export const awaitWebhooks = async (received: ReceivedWebhook[], expected: ReadonlySet<string>): Promise<void> => {
  const deadline = Date.now() + SETTLE_MS;
  while (Date.now() < deadline) {
    const seen = new Set(received.map((request) => (request.body as { id?: string }).id));
    if ([...expected].every((id) => seen.has(id))) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};
