import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createPostgresEventStore, migrateAuditTables, startEmbeddedDatabase } from '#event-store';
import { EmailOutbox, messagingMigrations, migrateMessagingTables } from '#messaging';
import { runMigrations } from '#platform';
import { PREVIOUS_RELEASE_DATA, PREVIOUS_RELEASE_DDL } from '../testing/previous-release.fixture.js';

const SERVER = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ALL_MIGRATIONS = ['audit/0001-baseline', 'log/0001-baseline', 'messaging/0001-baseline', 'messaging/0002-outbox-recent-index', 'messaging/0003-webhook-recoveries'];

interface Database { pool: pg.Pool; url: string | null; drop(): Promise<void> }

/** A database of its own on the server: the tables in `public` (log, audit, leases) are shared by design. */
const freshServerDatabase = async (): Promise<Database> => {
  const name = `migrations_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: SERVER, max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = SERVER.replace(/\/[^/]*$/, `/${name}`);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // The drop below terminates what is still connected (WITH FORCE): an idle connection ended that way
  // is not a failure of the test (the full suite once met it as an unhandled 'error' of the pool).
  pool.on('error', () => undefined);
  return {
    pool, url,
    drop: async () => {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
};

const embeddedDatabase = async (): Promise<Database> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'migrations-pglite-'));
  const database = await startEmbeddedDatabase({ dataDir });
  return { pool: database.pool, url: null, drop: async () => { await database.stop(); await rm(dataDir, { recursive: true, force: true }); } };
};

/** What a process of this release runs at start, on the schemas the service uses. */
const migrateAtStart = async (pool: pg.Pool): Promise<void> => {
  const store = await createPostgresEventStore({ pool, listen: false, notify: false, deployment: 'multi-process' });
  await store.close();
  await migrateAuditTables(pool, 'public');
  await migrateMessagingTables(pool, 'messaging');
};

const applied = async (pool: pg.Pool, schema: string): Promise<string[]> =>
  (await pool.query<{ name: string }>(`SELECT name FROM "${schema}".schema_migrations ORDER BY name`)).rows.map((row) => row.name);

const history = async (pool: pg.Pool): Promise<string[]> => [...await applied(pool, 'public'), ...await applied(pool, 'messaging')].sort();

describe.each([
  ['PostgreSQL', freshServerDatabase],
  ['embedded PGlite', embeddedDatabase],
])('side-table migrations on %s', (_store, open) => {
  let db: Database;
  beforeEach(async () => { db = await open(); }, 30_000);
  afterEach(async () => db.drop());

  it('adopt a database written by the release before migrations: its data intact, migration 1 recorded, migration 2 applied', async () => {
    for (const statement of [...PREVIOUS_RELEASE_DDL, ...PREVIOUS_RELEASE_DATA]) await db.pool.query(statement);

    await migrateAtStart(db.pool);

    expect(await history(db.pool)).toEqual(ALL_MIGRATIONS);
    const indexes = await db.pool.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'messaging' AND tablename = 'email_outbox'`);
    expect(indexes.rows.map((row) => row.indexname)).toContain('email_outbox__seq');
    const counts = await db.pool.query<Record<string, number>>(`SELECT
      (SELECT count(*)::int FROM public.events WHERE hash = 'h1') AS events, (SELECT count(*)::int FROM public.audit_links) AS links,
      (SELECT count(*)::int FROM public.audit_seals) AS seals, (SELECT count(*)::int FROM public.person_keys WHERE sealed_key = 'sealed') AS keys,
      (SELECT count(*)::int FROM public.state_snapshots) AS snapshots, (SELECT count(*)::int FROM messaging.webhook_deliveries) AS deliveries,
      (SELECT count(*)::int FROM messaging.dispatch_checkpoints WHERE position = 1) AS checkpoints, (SELECT count(*)::int FROM public.service_leases WHERE fence = 3) AS leases`);
    expect(counts.rows[0]).toEqual({ events: 1, links: 1, seals: 1, keys: 1, snapshots: 1, deliveries: 1, checkpoints: 1, leases: 1 });
    const envelope = await db.pool.query<{ body: string }>(`SELECT envelope::text AS body FROM messaging.webhook_deliveries`);
    expect(envelope.rows[0]?.body).toBe('{"b":1, "a":2}');
    expect((await new EmailOutbox(db.pool, 'messaging').listRecent(5)).map((email) => email.subject)).toEqual(['Old invitation']);

    // The log adopted is the log written to: an append after the old event, through the checked path.
    const store = await createPostgresEventStore({ pool: db.pool, listen: false, notify: false, deployment: 'multi-process' });
    await store.appendToStream('assessment-a1', [{ id: '6f1c1c1e-0000-4000-8000-000000000002', type: 'AssessmentClosed', data: {}, metadata: { now: '2026-11-02T09:00:00.000Z' } as never }], { expectedRevision: 0 });
    expect((await store.readStream('assessment-a1')).map((event) => event.type)).toEqual(['AssessmentCreated', 'AssessmentClosed']);
    await store.close();

    // A second start applies nothing.
    await migrateAtStart(db.pool);
    expect(await history(db.pool)).toEqual(ALL_MIGRATIONS);
  }, 60_000);

  it('run the later migrations on a database that had migration 1, and leave a newer release\'s migrations alone', async () => {
    await runMigrations(db.pool, { component: 'messaging', schema: 'messaging', migrations: messagingMigrations('messaging').slice(0, 1) });
    await db.pool.query(`INSERT INTO messaging.email_outbox (id, event_id, recipient, subject, body_text, body_html, sent_at) VALUES ('em_1', 'ev_1', 'a@example.com', 's', 't', 'h', now())`);
    expect(await applied(db.pool, 'messaging')).toEqual(['messaging/0001-baseline']);

    expect(await migrateMessagingTables(db.pool, 'messaging')).toEqual(['0002-outbox-recent-index', '0003-webhook-recoveries']);
    expect(await applied(db.pool, 'messaging')).toEqual(['messaging/0001-baseline', 'messaging/0002-outbox-recent-index', 'messaging/0003-webhook-recoveries']);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM messaging.email_outbox')).rows[0]).toEqual({ n: 1 });

    // An older process started during a rolling deploy knows only migration 1: it starts, and undoes nothing.
    expect(await runMigrations(db.pool, { component: 'messaging', schema: 'messaging', migrations: messagingMigrations('messaging').slice(0, 1) })).toEqual([]);
    expect(await applied(db.pool, 'messaging')).toHaveLength(3);
  }, 60_000);
});

/** A process of this release (built: dist/) migrating at start, printing what it applied. */
const migratingProcess = (url: string): Promise<{ code: number | null; output: string }> => new Promise((done) => {
  const root = resolve('dist/libs');
  const script = `
    import pg from 'pg';
    import { migrateAuditTables } from '${root}/event-store/src/index.js';
    import { migrateMessagingTables } from '${root}/messaging/src/index.js';
    const pool = new pg.Pool({ connectionString: process.env.MIGRATE_URL, max: 2 });
    const names = [...(await migrateAuditTables(pool, 'public')).map((name) => 'audit/' + name),
      ...(await migrateMessagingTables(pool, 'messaging')).map((name) => 'messaging/' + name)];
    await pool.end();
    process.stdout.write(JSON.stringify(names));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, MIGRATE_URL: url }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.on('exit', (code) => done({ code, output }));
});

describe('two processes starting at once on one PostgreSQL database', () => {
  it('both start, and each migration runs exactly once', async () => {
    const db = await freshServerDatabase();
    const holder = await db.pool.connect();
    try {
      for (const statement of [...PREVIOUS_RELEASE_DDL, ...PREVIOUS_RELEASE_DATA]) await db.pool.query(statement);
      // Held here until both processes wait on it, so that they really start together.
      await holder.query(`SELECT pg_advisory_lock(hashtext('schema-migrations:public'))`);
      const url = db.url ?? '';
      const both = Promise.all([migratingProcess(url), migratingProcess(url)]);
      for (let waiting = 0; waiting < 2;) {
        await new Promise((later) => setTimeout(later, 50));
        const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`);
        waiting = rows[0]?.n ?? 0;
      }
      await holder.query(`SELECT pg_advisory_unlock(hashtext('schema-migrations:public'))`);
      const results = await both;

      expect(results.map((result) => result.code)).toEqual([0, 0]);
      const ran = results.flatMap((result) => JSON.parse(result.output) as string[]).sort();
      expect(ran).toEqual(['audit/0001-baseline', 'messaging/0001-baseline', 'messaging/0002-outbox-recent-index', 'messaging/0003-webhook-recoveries']);
      expect((await history(db.pool)).filter((name) => !name.startsWith('log/'))).toEqual(ran);
    } finally {
      holder.release();
      await db.drop();
    }
  }, 60_000);
});
