import type { Infrastructure } from '#runtime/infrastructure.js';
import { API_VERSION, serviceVersion } from '#platform';
import { allProjectionNames } from '#read-models';

export interface HealthSummary {
  status: 'ok' | 'degraded';
  /** The release (package.json's version). */
  version: string;
  /** The version of the public API contract it serves (the OpenAPI document's info.version). */
  apiVersion: string;
  eventStore: { headPosition: string | null };
  readModels: Record<string, string | null>;
  redis: 'ok' | 'unreachable';
  queues: Record<string, { waiting: number; active: number; delayed: number; failed: number }> | null;
}

/** Operators' view of the moving parts: the log head, how far each read model is, and the queues. */
export const healthSummary = async (infra: Infrastructure): Promise<HealthSummary> => {
  const [head, checkpoints, redis] = await Promise.all([
    infra.eventStore.headPosition(),
    infra.documents.checkpoints(allProjectionNames),
    infra.redis.ping().then(() => 'ok' as const, () => 'unreachable' as const),
  ]);
  // Queue connections wait for Redis indefinitely; the health answer does not.
  const queues = infra.messaging
    ? await Promise.race([infra.messaging.queueHealth().catch(() => null), new Promise<null>((resolve) => setTimeout(() => resolve(null), 1000).unref())])
    : null;
  return {
    status: redis === 'ok' ? 'ok' : 'degraded',
    version: serviceVersion(),
    apiVersion: API_VERSION,
    eventStore: { headPosition: head === null ? null : head.toString() },
    readModels: Object.fromEntries([...checkpoints].map(([name, position]) => [name, position === null ? null : position.toString()])),
    redis,
    queues,
  };
};
