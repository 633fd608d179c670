import { jest } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import { migrateMessagingTables } from '#messaging';
import { FOLLOWERS_LEASE, Lease } from './lease.js';

jest.setTimeout(30_000);

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const logger = pino({ level: 'silent' });
const handlers = { acquired: async () => undefined, lost: async () => undefined };

/** The lease's table lives in `public`: each run gets a database of its own. */
describe('Lease (PostgreSQL)', () => {
  const database = `lease_${Date.now().toString(36)}`;
  const admin = new pg.Pool({ connectionString: ADMIN_URL, max: 1 });
  let pool: pg.Pool;

  beforeAll(async () => {
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${database}`;
    pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
    await migrateMessagingTables(pool, 'messaging');
  });

  afterAll(async () => {
    // pool.end() resolves before its connections have closed; a forced drop terminated one still
    // closing, and the pool had no listener for that error. The drop waits for them instead.
    await pool.end();
    const open = async (): Promise<number> =>
      (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database])).rows[0]?.n ?? 0;
    while (await open() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  });

  const live = async (): Promise<{ holder: string; live: boolean } | null> =>
    (await pool.query<{ holder: string; live: boolean }>(`SELECT holder, expires_at >= now() AS live FROM public.service_leases WHERE name = $1`, [FOLLOWERS_LEASE])).rows[0] ?? null;

  it('a lease taken while the process was stopping is handed back at once, not left live for its TTL', async () => {
    // Another holder's row, locked: the new process's attempt to take it waits on the lock.
    await pool.query(`INSERT INTO public.service_leases (name, holder, fence, expires_at) VALUES ($1, 'other', 1, now() + interval '1 minute')`, [FOLLOWERS_LEASE]);
    const blocker = await pool.connect();
    await blocker.query('BEGIN');
    await blocker.query(`SELECT 1 FROM public.service_leases WHERE name = $1 FOR UPDATE`, [FOLLOWERS_LEASE]);

    const lease = new Lease(pool, FOLLOWERS_LEASE, logger, handlers);
    lease.start();
    // The attempt is under way (waiting for the row) when the process is told to stop.
    const waiting = async (): Promise<boolean> =>
      (await admin.query<{ waiting: number }>(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`, [database])).rows[0]?.waiting === 1;
    while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20));
    const stopped = lease.stop();
    // The other holder's lease ends: the waiting attempt takes it.
    await blocker.query(`UPDATE public.service_leases SET expires_at = now() - interval '1 millisecond' WHERE name = $1`, [FOLLOWERS_LEASE]);
    await blocker.query('COMMIT');
    blocker.release();
    await stopped;

    expect(await live()).toEqual({ holder: lease.holder, live: false });
    expect(lease.isHeld).toBe(false);
  });
});
