import { types } from 'node:util';

// What node-postgres reports while the server cannot be reached or has dropped the connection:
// refused, reset or timed out sockets, the server shutting down or starting up (SQLSTATE 57P01-57P03),
// any connection exception (class 08, NoWritableHostError's 08001 included), and the pool's and
// client's own words for a dead connection. A write refused as read-only (25006) is the same thing
// in a failover: the host stopped being the primary (a switchover drains it read-only first).
const CONNECTION_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|57P0[123]|08\w{3}|25006)$/;
const CONNECTION_MESSAGE = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection refused|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i;

/** The server is unreachable now (an outage, a restart, a failover), not a bug; looks into AggregateError and `cause`. */
export const isDatabaseConnectionError = (error: unknown, depth = 0): boolean => {
  // isNativeError too: an error made in another realm (Node's sockets' errors, seen from a vm context such as Jest's) is no `instanceof Error` there.
  if (!(error instanceof Error || types.isNativeError(error)) || depth > 3) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.test(code)) return true;
  if (CONNECTION_MESSAGE.test(error.message)) return true;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.some((each) => isDatabaseConnectionError(each, depth + 1))) return true;
  return isDatabaseConnectionError((error as { cause?: unknown }).cause, depth + 1);
};

/** What the followers and the HTTP edge ask about the database, watched in one place (libs/runtime/src/database-health.ts). */
export interface DatabaseOutage {
  /** False from the moment the database is known unreachable until a probe reaches it again. */
  readonly isUp: boolean;
  /** True for a connection error: the database is then probed (once for concurrent reports) and, unanswered, declared down. */
  report(error: unknown): boolean;
  /** Resolves once the database answers again (at once while it is up). */
  untilUp(): Promise<void>;
}

/** The embedded store runs in this process: it has no outage of its own. */
export const noDatabaseOutage: DatabaseOutage = {
  isUp: true,
  report: (error) => isDatabaseConnectionError(error),
  untilUp: () => Promise.resolve(),
};

/** Thrown at the edge while the database is down: answered 500 server_error with Retry-After. */
export class DatabaseUnavailableError extends Error {
  constructor() {
    super('the database is unreachable');
    this.name = 'DatabaseUnavailableError';
  }
}
