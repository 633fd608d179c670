// What ioredis and BullMQ report while Redis cannot be reached (refused, reset, timed out, offline
// with no queue, still loading its data after a restart), or while its master is being replaced
// (a demoted master's READONLY, MASTERDOWN, no sentinel answering, a blocked call unblocked).
const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|Connection is closed|Stream isn't writeable|Command timed out|Socket closed unexpectedly|max retries per request|LOADING|READONLY|MASTERDOWN|All sentinels are unreachable|UNBLOCKED/i;

/** True for an error that means "Redis is not reachable right now", not a bug. */
export const isRedisConnectionError = (error: unknown): boolean =>
  error instanceof Error && (CONNECTION_ERROR.test(error.message) || ('code' in error && typeof error.code === 'string' && CONNECTION_ERROR.test(error.code)));
