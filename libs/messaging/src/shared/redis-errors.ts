import type { Logger } from 'pino';
import { isRedisConnectionError } from '#platform';

/**
 * An `error` listener for queue workers: real errors are logged, connection trouble is not repeated
 * for every reconnection attempt (the outage is logged once, by libs/runtime/src/redis-health.ts).
 */
export const logQueueError = (logger: Logger | undefined, message: string) => (error: Error): void => {
  if (!isRedisConnectionError(error)) logger?.error({ err: error }, message);
};
