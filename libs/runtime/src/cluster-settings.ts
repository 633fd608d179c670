import { createHmac } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { type Migration, type ServiceConfig, StartRefused, inTransaction, runMigrations } from '#platform';

const TABLE = 'public.service_members';
const TTL_MS = 6_000;
const HEARTBEAT_EVERY_MS = 2_000;

/** The members' table changes only through these (docs/operations.md, "Upgrades"); 0001 is the release before migrations' DDL. */
const clusterMigrations: Migration[] = [
  { name: '0001-baseline', up: async (client) => { await client.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (member text COLLATE "C" PRIMARY KEY, settings jsonb NOT NULL, expires_at timestamptz NOT NULL)`); } },
];

/**
 * The settings the workers of a deployment must share: one that disagrees would handle the others' jobs
 * differently. Secrets and addresses with credentials are compared by a keyed digest, never stored.
 */
export const clusterSettings = (config: ServiceConfig, serviceSecret: string): Record<string, string> => {
  const digest = (value: string): string => createHmac('sha256', 'hiring-cluster-settings').update(value).digest('hex').slice(0, 16);
  return {
    SERVICE_SECRET: digest(serviceSecret),
    WEBHOOK_ALLOW_INSECURE: String(config.webhookAllowInsecure),
    WEBHOOK_BACKOFF_MS: String(config.webhookBackoffMs),
    APP_URL: config.appUrl,
    SMTP_URL: config.smtpUrl === null ? 'unset' : digest(config.smtpUrl),
    SIMULATED_CLOCK: String(config.simulatedClock),
  };
};

/** A worker started with settings the running ones do not share: refused with one line saying which. */
export class DivergentSettingsError extends StartRefused {
  constructor(readonly differing: readonly string[]) {
    super(`refusing to start: ${differing.join(', ')} ${differing.length === 1 ? 'differs' : 'differ'} from the workers running now; `
      + 'give every worker the same settings (to change them, stop every worker, then start them with the new ones)');
    this.name = 'DivergentSettingsError';
  }
}

/**
 * The workers running now with their settings (a row per process, renewed every 2 s, gone 6 s after it). A
 * worker joins only if every live member has its settings: check and join are one transaction under an
 * advisory lock, so two workers started at once with different settings cannot both get in.
 */
export class ClusterMembership {
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly pool: pg.Pool, private readonly member: string, private readonly settings: Record<string, string>, private readonly logger: Logger,
  ) {}

  static async join(pool: pg.Pool, member: string, settings: Record<string, string>, logger: Logger): Promise<ClusterMembership> {
    await runMigrations(pool, { component: 'cluster', schema: 'public', migrations: clusterMigrations });
    await inTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['hiring-cluster-members']);
      await client.query(`DELETE FROM ${TABLE} WHERE expires_at < now()`);
      const live = await client.query(`SELECT settings FROM ${TABLE}`);
      const differing = new Set<string>();
      for (const row of live.rows as { settings: Record<string, string> }[]) {
        for (const name of new Set([...Object.keys(settings), ...Object.keys(row.settings)])) {
          if (row.settings[name] !== settings[name]) differing.add(name);
        }
      }
      if (differing.size > 0) throw new DivergentSettingsError([...differing].sort());
      await client.query(`INSERT INTO ${TABLE} (member, settings, expires_at) VALUES ($1, $2, now() + $3::int * interval '1 millisecond')`, [member, settings, TTL_MS]);
    });
    const membership = new ClusterMembership(pool, member, settings, logger);
    membership.heartbeat();
    return membership;
  }

  /** At a clean stop: the row goes at once, so that the workers may then be restarted with other settings. */
  async leave(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.pool.query(`DELETE FROM ${TABLE} WHERE member = $1`, [this.member]).catch((error: unknown) => {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not leave the cluster list; the entry expires in 6 s');
    });
  }

  private heartbeat(): void {
    this.timer = setTimeout(() => {
      // Inserted again if it expired meanwhile (a database outage longer than 6 s): it is still this worker.
      this.pool.query(
        `INSERT INTO ${TABLE} (member, settings, expires_at) VALUES ($1, $2, now() + $3::int * interval '1 millisecond')
         ON CONFLICT (member) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
        [this.member, this.settings, TTL_MS],
      ).catch(() => undefined).finally(() => {
        if (this.timer !== null) this.heartbeat();
      });
    }, HEARTBEAT_EVERY_MS);
    this.timer.unref();
  }
}
