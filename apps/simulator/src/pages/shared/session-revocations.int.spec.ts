import pg from 'pg';
import { POSTGRES_URL } from '#messaging/test-support/postgres.js';
import { liveSession, SessionRevocations } from './session-revocations.js';
import { PageSessions } from './session.js';

/**
 * Two internal-app processes of a PostgreSQL deployment: each has its own pool and its own
 * SessionRevocations over the one database; a sign-out in one is seen by the other at once.
 */
describe('page session revocations (PostgreSQL)', () => {
  const sessions = new PageSessions('service-secret', 'internal-token');
  const pools: pg.Pool[] = [];
  const processOf = async (): Promise<SessionRevocations> => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    pools.push(pool);
    const revocations = new SessionRevocations(pool);
    await revocations.ensureSchema();
    return revocations;
  };

  afterAll(async () => {
    for (const pool of pools) await pool.end().catch(() => undefined);
  });

  it('refuses a signed-out cookie in every process, and only that one', async () => {
    const [first, second] = await Promise.all([processOf(), processOf()]);
    const now = Date.now();
    const signedOut = sessions.issue(now);
    const stillIn = sessions.issue(now);
    expect(await liveSession(sessions, second, signedOut.cookie, now)).toEqual(signedOut.session);
    await first.revoke(signedOut.session, now);
    expect(await liveSession(sessions, second, signedOut.cookie, now + 1)).toBeNull();
    expect(await liveSession(sessions, first, signedOut.cookie, now + 1)).toBeNull();
    expect(await liveSession(sessions, second, stillIn.cookie, now + 1)).toEqual(stillIn.session);
    // Signing out twice (two tabs) is no error.
    await second.revoke(signedOut.session, now + 2);
  });

  it('lets no session through when the database cannot say whether it was revoked (fail closed)', async () => {
    const revocations = await processOf();
    const { cookie } = sessions.issue(Date.now());
    await pools.at(-1)?.end();
    await expect(liveSession(sessions, revocations, cookie, Date.now())).rejects.toThrow();
  });
});
