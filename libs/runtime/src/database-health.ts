import type { Logger } from 'pino';
import { type DatabaseOutage, isDatabaseConnectionError } from '#platform';
import type { PostgresServer } from './postgres-servers.js';

const PROBE_INTERVAL_MS = 1000;

/** A host list's probe also finds its primary: after a failover the pools follow it from here. */
const probeAll = async (servers: readonly PostgresServer[]): Promise<void> => {
  for (const server of servers) await server.probe();
};

/**
 * Says ONCE that the process's PostgreSQL is unreachable (and once that it is back), not a stack trace per
 * request, pool and retry. Whoever meets an error reports it; a connection error makes it probe on a
 * connection of its own, and only a failed probe declares the outage (`pg_terminate_backend` is not one).
 * While down it probes every second; the edge answers at once, followers wait for `untilUp()`.
 * Invariant: `isUp` is false only between a failed probe and the next successful one (one interval at most).
 */
export class DatabaseHealth implements DatabaseOutage {
  private up = true;
  private checking: Promise<void> | null = null;
  private whenUp: Promise<void> = Promise.resolve();
  private signalUp: () => void = () => undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly servers: readonly PostgresServer[], private readonly logger: Logger) {}

  get isUp(): boolean {
    return this.up;
  }

  report(error: unknown): boolean {
    if (!isDatabaseConnectionError(error)) return false;
    if (this.up) void this.check();
    return true;
  }

  untilUp(): Promise<void> {
    return this.whenUp;
  }

  /** At a clean stop: no more probes, and nobody waits for a database that will not be asked again. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.signalUp();
  }

  private check(): Promise<void> {
    this.checking ??= probeAll(this.servers).then(
      () => undefined,
      (error: unknown) => this.declareDown(error),
    ).finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private declareDown(error: unknown): void {
    if (!this.up || this.stopped) return;
    this.up = false;
    this.whenUp = new Promise((resolveUp) => { this.signalUp = resolveUp; });
    this.logger.warn({ database: this.servers.map((server) => server.address), reason: error instanceof Error ? error.message : String(error) },
      'the database is unreachable: requests answer 500 server_error with Retry-After at once, the followers wait; retrying every second');
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      probeAll(this.servers).then(() => {
        if (this.stopped) return;
        this.up = true;
        this.logger.info({ database: this.servers.map((server) => server.address) }, 'the database is reachable again; requests and followers resume');
        this.signalUp();
      }, () => this.scheduleProbe());
    }, PROBE_INTERVAL_MS);
    this.timer.unref();
  }
}

/**
 * A process started while its database is down waits for it, saying so once, instead of exiting:
 * under a supervisor that restarts it, exiting only turns an outage into a crash loop.
 */
export const waitForDatabase = async (servers: readonly PostgresServer[], logger: Logger): Promise<void> => {
  let announced = false;
  for (;;) {
    try {
      await probeAll(servers);
      if (announced) logger.info({ database: servers.map((server) => server.address) }, 'the database answers; starting');
      return;
    } catch (error) {
      // Anything else (a wrong password, a database that does not exist) is the operator's to fix.
      if (!isDatabaseConnectionError(error)) throw error;
      if (!announced) {
        logger.warn({ database: servers.map((server) => server.address), reason: error instanceof Error ? error.message : String(error) }, 'the database is unreachable; waiting for it before starting');
        announced = true;
      }
      await new Promise((resolveLater) => setTimeout(resolveLater, PROBE_INTERVAL_MS));
    }
  }
};
