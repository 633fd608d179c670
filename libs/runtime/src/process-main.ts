import { setFlagsFromString } from 'node:v8';
import { StartRefused } from '#platform';
import type { Logger } from 'pino';
import type { Infrastructure } from './infrastructure.js';

const SHUTDOWN_DEADLINE_MS = 20_000;

/** What a process serves on its ports: a Nest application, or the worker's health and metrics. */
export interface Listening {
  close(): Promise<unknown>;
}

/** Graceful shutdown: stop taking requests, let workers finish or return their jobs, close the stores. */
export const stopOnSignals = (logger: Logger, infra: Infrastructure, apps: Listening[]): void => {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Workers get time to finish or hand back their jobs; past that the process must still go away.
    setTimeout(() => {
      logger.warn('graceful shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    for (const app of apps) await app.close().catch((error: unknown) => logger.error({ err: error }, 'close failed'));
    await infra.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
};

/**
 * Every process of the service (and the audit command line) starts here. Files and folders it
 * creates are its own alone (umask 077): DATA_DIR holds personal data, the event log and the
 * service secret, and so does an audit export. Set before anything is created, so it also covers
 * the children (redis-server, flock) and PGlite's worker thread.
 *
 * V8's allocation-site pretenuring is off, for the same reason here: once it marks the site where
 * `pg-protocol` makes every row's array, every page's rows are made old and hold their strings
 * through each young collection (docs/architecture.md, "Garbage collection").
 */
export const runMain = (main: () => Promise<void>): void => {
  process.umask(0o077);
  setFlagsFromString('--no-allocation-site-pretenuring');
  main().catch((error: unknown) => {
    // Refusals an operator can act on are one line, not a stack trace.
    if (error instanceof StartRefused) process.stderr.write(`\n${error.message}\n\n`);
    else process.stderr.write(`failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exit(1);
  });
};
