import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { LEASES_TABLE } from '#messaging';

/** The loops that must run once per deployment (catch-up projections, dispatcher, sealer) share one lease. */
export const FOLLOWERS_LEASE = 'followers';

const TABLE = `public.${LEASES_TABLE}`;
/** A holder that stops renewing (kill -9, a frozen process, a lost network) loses the lease after this. */
const TTL_MS = 6_000;
const RENEW_EVERY_MS = 2_000;
/** How often a process without the lease tries to take it: a dead holder is replaced within TTL + this. */
const POLL_EVERY_MS = 1_000;

/** A held lease: the fence is bumped at every change of holder, and checkpoint writes carry it. */
export interface HeldLease {
  name: string;
  holder: string;
  fence: string;
}

export interface LeaseHandlers {
  /** Start the loops; called once per acquisition, never while a previous `lost` runs. */
  acquired(lease: HeldLease): Promise<void>;
  /** Stop the loops (the lease expired, was taken over, or the process stops). */
  lost(): Promise<void>;
}

/**
 * A lease in PostgreSQL (its table made by the messaging migrations), as Marten's and Emmett's daemons hold
 * theirs: a row per name with its holder, a fence bumped at every change of holder, and an expiry renewed
 * every 2 s by the database's clock (`now()`), so host skew does not matter. A dead holder is replaced within
 * TTL + poll (about 7 s); a clean stop releases at once. A holder that cannot renew for the TTL stops its
 * loops before anyone can take over; the fence in checkpoint writes refuses one frozen past that point.
 */
export class Lease {
  private held: HeldLease | null = null;
  private renewedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private ticking: Promise<void> = Promise.resolve();
  private transitions: Promise<void> = Promise.resolve();
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(private readonly pool: pg.Pool, private readonly name: string, private readonly logger: Logger, private readonly handlers: LeaseHandlers) {}

  get isHeld(): boolean {
    return this.held !== null;
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops the loops, then releases the lease so that another process takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.ticking;
    const held = this.held;
    if (held === null) return this.transitions;
    this.lose('stopping');
    await this.transitions;
    await this.release(held);
  }

  private release(held: HeldLease): Promise<void> {
    return this.pool.query(`UPDATE ${TABLE} SET expires_at = now() - interval '1 millisecond' WHERE name = $1 AND holder = $2 AND fence = $3::bigint`,
      [held.name, held.holder, held.fence]).then(
      () => this.logger.info({ lease: this.name }, 'released the lease; another process takes over at once'),
      (error: unknown) => this.logger.warn({ lease: this.name, err: error instanceof Error ? error.message : String(error) }, 'could not release the lease; another process takes over when it expires'),
    );
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ticking = this.tick().finally(() => this.schedule(this.held ? RENEW_EVERY_MS : POLL_EVERY_MS));
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      if (this.held) await this.renew(this.held);
      else await this.acquire();
    } catch {
      // The database is unreachable (logged once by its health watcher): a holder gives up before the
      // lease can expire in the database, so that two holders never run at once.
      if (this.held && Date.now() - this.renewedAt > TTL_MS - RENEW_EVERY_MS) this.lose('could not renew it in time');
    }
  }

  private async acquire(): Promise<void> {
    const result = await this.pool.query(
      `INSERT INTO ${TABLE} (name, holder, fence, expires_at) VALUES ($1, $2, 1, now() + $3::int * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, fence = ${TABLE}.fence + 1, expires_at = EXCLUDED.expires_at
       WHERE ${TABLE}.expires_at < now()
       RETURNING fence::text AS fence`,
      [this.name, this.holder, TTL_MS],
    );
    const row = result.rows[0] as { fence: string } | undefined;
    if (row === undefined) return;
    const held = { name: this.name, holder: this.holder, fence: row.fence };
    // Taken while stop() waited for this tick: it found nothing held, so the lease is handed back here,
    // not left to expire (for the TTL no process would run the loops).
    if (this.stopped) return this.release(held);
    this.held = held;
    this.renewedAt = Date.now();
    this.logger.info({ lease: this.name, fence: held.fence }, 'took the lease: this process runs the loops that must run once');
    this.transitions = this.transitions.then(() => this.handlers.acquired(held)).catch((error: unknown) => {
      this.logger.error({ lease: this.name, err: error }, 'starting the leased loops failed; releasing the lease');
      this.lose('could not start its loops');
    });
  }

  private async renew(held: HeldLease): Promise<void> {
    const started = Date.now();
    const result = await this.pool.query(
      `UPDATE ${TABLE} SET expires_at = now() + $4::int * interval '1 millisecond' WHERE name = $1 AND holder = $2 AND fence = $3::bigint AND expires_at >= now()`,
      [held.name, held.holder, held.fence, TTL_MS],
    );
    if (result.rowCount === 1) this.renewedAt = started;
    else this.lose('it expired or was taken over');
  }

  private lose(reason: string): void {
    if (this.held === null) return;
    this.held = null;
    if (reason !== 'stopping') this.logger.warn({ lease: this.name, reason }, 'lost the lease: stopping the loops that must run once');
    this.transitions = this.transitions.then(() => this.handlers.lost()).catch((error: unknown) => {
      this.logger.error({ lease: this.name, err: error }, 'stopping the leased loops failed');
    });
  }
}

/**
 * Whether some process holds a lease now, as seen by a process that does not run the loops (an API
 * process asking whether a dispatcher is alive). Cached for a second: an answer may be a second old.
 */
export class LeaseObserver {
  private known: { at: number; held: boolean } | null = null;
  private reading: Promise<boolean> | null = null;

  constructor(private readonly pool: pg.Pool, private readonly name: string, private readonly maxAgeMs = 1_000) {}

  isHeld(): Promise<boolean> {
    if (this.known !== null && Date.now() - this.known.at < this.maxAgeMs) return Promise.resolve(this.known.held);
    this.reading ??= this.pool.query(`SELECT 1 FROM ${TABLE} WHERE name = $1 AND expires_at >= now()`, [this.name]).then(
      (result) => {
        this.known = { at: Date.now(), held: result.rowCount === 1 };
        return this.known.held;
      },
    ).finally(() => {
      this.reading = null;
    });
    return this.reading;
  }
}

