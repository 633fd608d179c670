import type { Pool } from 'pg';
import { type Migration, runMigrations } from '#platform/database/migrations.js';
import { qualified } from './sql.js';

/*
 * The messaging tables: the webhook delivery log, the e-mail outbox, the dispatcher's checkpoints and
 * the leases that fence them. Not derived from the log (they say what was sent, and rebuilding a read
 * model must never send again), so they change only through these migrations, never by editing one:
 * the next change is the next number, and it must leave the previous release working (rolling deploys).
 */

/** The DDL of the release before migrations, frozen: IF NOT EXISTS throughout, so it adopts a database that release wrote. */
const baseline = (schema: string): string[] => {
  const deliveries = qualified(schema, 'webhook_deliveries');
  const outbox = qualified(schema, 'email_outbox');
  return [
    // `envelope` is json, not jsonb: json keeps the exact text, so every retry signs and sends the same bytes.
    `CREATE TABLE IF NOT EXISTS ${deliveries} (
      id text COLLATE "C" PRIMARY KEY,
      seq bigserial NOT NULL,
      workspace_id text COLLATE "C" NOT NULL,
      event_id text COLLATE "C" NOT NULL,
      event text NOT NULL,
      url text NOT NULL,
      envelope json NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      attempt_log jsonb NOT NULL DEFAULT '[]'::jsonb,
      last_response_status integer,
      last_error text,
      sandbox boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS webhook_deliveries__workspace ON ${deliveries} (workspace_id, created_at DESC, seq DESC)`,
    `CREATE INDEX IF NOT EXISTS webhook_deliveries__address ON ${deliveries} (workspace_id, url)`,
    `CREATE INDEX IF NOT EXISTS webhook_deliveries__created ON ${deliveries} (created_at)`,
    `CREATE INDEX IF NOT EXISTS webhook_deliveries__pending ON ${deliveries} (updated_at, seq) WHERE status = 'pending'`,
    `CREATE TABLE IF NOT EXISTS ${outbox} (
      id text COLLATE "C" PRIMARY KEY, seq bigserial NOT NULL, event_id text COLLATE "C" NOT NULL UNIQUE,
      recipient text NOT NULL, subject text NOT NULL, body_text text NOT NULL, body_html text NOT NULL,
      sent_at timestamptz NOT NULL, smtp_accepted_at timestamptz)`,
    `CREATE INDEX IF NOT EXISTS email_outbox__recipient ON ${outbox} (recipient, sent_at DESC, seq DESC)`,
    `CREATE TABLE IF NOT EXISTS ${qualified(schema, 'dispatch_checkpoints')} (name text COLLATE "C" PRIMARY KEY, position bigint NOT NULL)`,
    // The leases of the loops that must run once (libs/runtime/src/lease.ts), which fence these checkpoints.
    'CREATE TABLE IF NOT EXISTS public.service_leases (name text COLLATE "C" PRIMARY KEY, holder text NOT NULL, fence bigint NOT NULL, expires_at timestamptz NOT NULL)',
  ];
};

const recoveryColumns = (schema: string): string[] => {
  const deliveries = qualified(schema, 'webhook_deliveries');
  return [
    `ALTER TABLE ${deliveries} ADD COLUMN recovery_id text COLLATE "C"`,
    `ALTER TABLE ${deliveries} ADD COLUMN recovery_turn integer`,
    `CREATE INDEX webhook_deliveries__recovery_turn ON ${deliveries} (recovery_id, recovery_turn) WHERE status = 'pending' AND recovery_turn IS NOT NULL`,
  ];
};

const statements = (list: readonly string[]): Migration['up'] => async (client) => {
  // One at a time: PGlite through a single-connection pool accepts no more per query.
  for (const statement of list) await client.query(statement);
};

export const messagingMigrations = (schema: string): Migration[] => [
  { name: '0001-baseline', up: statements(baseline(schema)) },
  // The internal application's "recent e-mails" (EmailOutbox.listRecent: ORDER BY seq DESC LIMIT n)
  // read the whole outbox and sorted it; with this index it reads the last n rows.
  { name: '0002-outbox-recent-index', up: statements([`CREATE INDEX email_outbox__seq ON ${qualified(schema, 'email_outbox')} (seq)`]) },
  // Webhook recoveries (webhooks/recovery-log.ts): the rows a recovery made, and each one's turn in
  // its recovery's sequence while its first attempt is still to come (null otherwise). Both nullable:
  // the previous release writes rows without them, and ignores them.
  { name: '0003-webhook-recoveries', up: statements(recoveryColumns(schema)) },
];

/** Brings the messaging tables of `schema` to this release (at start; safe when several processes start at once). */
export const migrateMessagingTables = (pool: Pool, schema: string): Promise<string[]> =>
  runMigrations(pool, { component: 'messaging', schema, migrations: messagingMigrations(schema) });
