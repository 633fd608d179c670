import pg from 'pg';
import type { Logger } from 'pino';
import { PrimaryLocator, type PostgresTarget, parsePostgresUrl } from '#platform';
import { reportFailover } from '#platform/instrumentation/channels.js';

const PROBE_TIMEOUT_MS = 1000;

/**
 * One PostgreSQL URL of the configuration and, for a host list, the locator keeping its pools on the primary.
 * Made once per URL and process, shared by the pools on it and the outage watcher.
 */
export class PostgresServer {
  readonly target: PostgresTarget;
  /** Null for a single host without target_session_attrs: node-postgres connects to it as before. */
  readonly locator: PrimaryLocator | null;

  /** `replica`: READ_REPLICA_URL's standby; a change of it is no failover (each read checks what it may use). */
  constructor(readonly url: string, readonly name: string, logger: Logger, readonly role: 'primary' | 'replica' = 'primary') {
    this.target = parsePostgresUrl(url, name);
    this.locator = this.target.hostList
      ? new PrimaryLocator(this.target, {
        probeTimeoutMs: PROBE_TIMEOUT_MS,
        onPrimaryChange: ({ from, to }) => {
          if (role === 'replica') {
            logger.info({ database: this.target.address, from, to }, 'the read replica changed: public reads go to the new host');
            return;
          }
          logger.warn({ database: this.target.address, from, to }, 'the database primary changed: new connections go to the new primary, those on the old one are closed');
          reportFailover('postgres');
        },
      })
      : null;
  }

  /** hosts/database, never the credentials. */
  get address(): string {
    return this.target.address;
  }

  /** The pool's connection settings: the URL as it is, or the locator's client on the primary. */
  poolConfig(): pg.PoolConfig {
    return this.locator === null ? { connectionString: this.url } : this.locator.poolOptions();
  }

  /**
   * Resolves when the server answers (a host list: a host is what the URL asks for, kept by the locator), else
   * rejects. On a connection of its own, never the pool's (its queue may be full of requests).
   */
  async probe(): Promise<void> {
    if (this.locator !== null) {
      await this.locator.locate();
      return;
    }
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: PROBE_TIMEOUT_MS, query_timeout: PROBE_TIMEOUT_MS });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** The PostgreSQL URLs of a process, one PostgresServer each (the same URL twice is one server). */
export class PostgresServers {
  private readonly byUrl = new Map<string, PostgresServer>();

  constructor(urls: readonly { url: string; name: string }[], logger: Logger) {
    for (const { url, name } of urls) if (!this.byUrl.has(url)) this.byUrl.set(url, new PostgresServer(url, name, logger));
  }

  get all(): PostgresServer[] {
    return [...this.byUrl.values()];
  }

  get(url: string): PostgresServer {
    const server = this.byUrl.get(url);
    if (!server) throw new Error('a PostgreSQL URL that was not configured');
    return server;
  }
}
