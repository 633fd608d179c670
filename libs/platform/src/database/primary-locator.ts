import pg from 'pg';
import { type Endpoint, type Writability, errorMessage, hostState, probeHost, sslAttempts, wanted, writability } from './host-probe.js';
import { type PostgresTarget, postgresHostKey } from './postgres-url.js';

/**
 * Which host of a libpq host list (as `pg_autoctl show uri` prints; node-postgres has none) is the writable
 * primary now, and a pg.Pool that opens every new connection there (docs/architecture.md, "Connection
 * failover"). The same locator keeps READ_REPLICA_URL's pool on a standby (`prefer-standby`, as libpq,
 * settles for any host that answers when no standby does, and says so with `matches`):
 * - writable is neither in recovery nor read-only, as a primary draining in a switchover is (`pg_is_in_recovery()` misses it);
 * - the pool's clients connect to the host found last and check it once connected: a host no longer
 *   writable fails the connection at once, a connection error, instead of writes failing later;
 * - when the primary changes, connections on other hosts are cut (socket destroyed, as a server restart
 *   does), so the pool, LISTEN and the followers reconnect through the paths a restart takes.
 */

/** What a URL's target_session_attrs asks of a host, in the words of an error. */
const wantedWords = (target: PostgresTarget): string => {
  switch (target.targetSessionAttrs) {
    case 'standby':
    case 'prefer-standby': return 'is a standby';
    case 'read-only': return 'is read-only';
    case 'any': return 'answers';
    default: return 'accepts writes';
  }
};

/** No host of the list is what the URL asks for now (a failover, every host down, no standby): a connection error. */
export class NoWritableHostError extends Error {
  /** SQLSTATE sqlclient_unable_to_establish_sqlconnection: the outage detection reads class 08. */
  readonly code = '08001';
  constructor(target: PostgresTarget, readonly reasons: readonly string[]) {
    super(`no host of ${target.address} ${wantedWords(target)} now`);
    this.name = 'NoWritableHostError';
  }
}

export interface PrimaryChange {
  /** host:port of the previous primary, or null at the first one found. */
  from: string | null;
  to: string;
}

export interface PrimaryLocatorOptions {
  /** Longest a probe waits for one host to connect and answer. */
  probeTimeoutMs?: number;
  /** Told each time the primary changes (not at the first one found). */
  onPrimaryChange?: (change: PrimaryChange) => void;
}

const DEFAULT_PROBE_TIMEOUT_MS = 2000;

export class PrimaryLocator {
  private current: Endpoint | null = null;
  private found = false;
  private locating: Promise<string> | null = null;
  /** Connections the pool opened, by the host they are on: cut when that host stops being the primary. */
  private readonly clients = new Map<pg.Client, string>();

  constructor(readonly target: PostgresTarget, private readonly options: PrimaryLocatorOptions = {}) {}

  /** host:port of the primary found last, or null before the first. */
  get primary(): string | null {
    return this.current?.key ?? null;
  }

  /**
   * True while the host kept is what the URL asks for, as of the last locate: false before the first,
   * after a locate that found none, and where `prefer-standby` settled for a host that is not a standby.
   */
  get matches(): boolean {
    return this.found;
  }

  /**
   * Asks every host at once and keeps the first of the list that is what the URL asks for; callers meanwhile share
   * the round. Throws NoWritableHostError (class 08) when none is, or the first host's own error when that is not a
   * connection problem (a wrong password is the operator's to fix, not an outage to wait out).
   */
  locate(): Promise<string> {
    this.locating ??= this.probeAll().finally(() => {
      this.locating = null;
    });
    return this.locating;
  }

  /** pg.Pool options that make every new connection on the primary (spread into the pool's config). */
  poolOptions(): Pick<pg.PoolConfig, 'Client' | 'onConnect'> {
    const locator = this;
    class PrimaryClient extends pg.Client {
      constructor(config?: pg.ClientConfig) {
        // Before the first locate (a pool used straight away) the first host is tried, and the hosts asked.
        if (locator.current === null) void locator.locate().catch(() => undefined);
        const endpoint = locator.current ?? locator.firstEndpoint();
        super({ ...config, connectionString: locator.target.urlFor(endpoint.host, endpoint.sslmode) });
        locator.clients.set(this, endpoint.key);
        this.once('end', () => locator.clients.delete(this));
      }
    }
    return {
      Client: PrimaryClient,
      onConnect: (client: pg.ClientBase) => this.verify(client),
    };
  }

  private firstEndpoint(): Endpoint {
    const host = this.target.hosts[0];
    if (!host) throw new Error('a PostgreSQL host list without hosts');
    return { host, key: postgresHostKey(host), sslmode: sslAttempts(this.target.sslmode)[0] };
  }

  /** A new connection is kept only where the URL wants it: elsewhere it fails now, as a connection error. */
  private async verify(client: pg.ClientBase): Promise<void> {
    // Any host will do for these (prefer-standby falls back to a primary when no standby answers).
    if (this.target.targetSessionAttrs === 'any' || this.target.targetSessionAttrs === 'prefer-standby') return;
    const key = client instanceof pg.Client ? this.clients.get(client) : undefined;
    let found: Writability;
    try {
      found = await writability(client);
    } catch (error) {
      throw new NoWritableHostError(this.target, [errorMessage(error)]);
    }
    if (wanted(this.target, found)) return;
    if (key === undefined || this.current === null || this.current.key === key) void this.locate().catch(() => undefined);
    throw new NoWritableHostError(this.target, [`${key ?? 'the host'} is ${hostState(found)}`]);
  }

  private async probeAll(): Promise<string> {
    const timeoutMs = this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const outcomes = await Promise.all(this.target.hosts.map((host) => probeHost(this.target, host, timeoutMs)));
    // prefer-standby, as libpq: a standby if one answers, else any host that does.
    const chosen = outcomes.find((outcome) => outcome.kind === 'wanted')
      ?? (this.target.targetSessionAttrs === 'prefer-standby' ? outcomes.find((outcome) => outcome.kind === 'unwanted') : undefined);
    if (chosen === undefined) {
      this.found = false;
      // Connections on a host that answers but is no longer what we want (draining, demoted) are useless now.
      for (const outcome of outcomes) if (outcome.kind === 'unwanted') this.cutHost(outcome.endpoint.key);
      const first = outcomes[0];
      if (first?.kind === 'failed' && !first.connectionProblem) throw first.error;
      throw new NoWritableHostError(this.target, outcomes.map((outcome) => outcome.reason));
    }
    const previous = this.current;
    this.current = chosen.endpoint;
    this.found = chosen.kind === 'wanted';
    if (previous !== null && previous.key !== chosen.endpoint.key) {
      for (const [client, key] of this.clients) if (key !== chosen.endpoint.key) this.cut(client);
      this.options.onPrimaryChange?.({ from: previous.key, to: chosen.endpoint.key });
    }
    return chosen.endpoint.key;
  }

  private cutHost(key: string): void {
    for (const [client, on] of this.clients) if (on === key) this.cut(client);
  }

  /** As a server restart does: the client's error listeners and the pool then drop it. */
  private cut(client: pg.Client): void {
    this.clients.delete(client);
    const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    stream?.destroy();
  }
}
