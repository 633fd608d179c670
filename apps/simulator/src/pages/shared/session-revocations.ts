import type pg from 'pg';
import { runDdl } from '#messaging';
import type { PageSession } from './session.js';

const TABLE = `"internal_app"."revoked_page_sessions"`;

/**
 * Sessions ended by signing out, by session id, until the cookie would have expired anyway. The
 * cookie stays a signed, self-contained value; this record is what makes it worthless before its
 * time. It lives in the SQL database the internal application already uses (embedded PGlite, or the
 * PostgreSQL server every process of a multi-process deployment shares), so a sign-out in one
 * process is seen by all of them at the next request, with no cache in between.
 *
 * Fail closed: when the database cannot answer, a page request is refused (an error page), never
 * let through as if its session had not been revoked; signing out that cannot record the revocation
 * fails too, and the browser keeps its cookie so that the sign-out can be tried again. The pages read
 * the same database for everything they show, so an outage of it takes nothing away that worked.
 * Size: one row per sign-out, deleted once its cookie has expired (pruned at every sign-out).
 */
export class SessionRevocations {
  constructor(private readonly pool: pg.Pool) {}

  async ensureSchema(): Promise<void> {
    // Under an advisory lock, so that internal-app processes starting together do not race on CREATE.
    await runDdl(this.pool, 'internal_app', [
      `CREATE TABLE IF NOT EXISTS ${TABLE} (session_id text COLLATE "C" PRIMARY KEY, expires_at timestamptz NOT NULL, revoked_at timestamptz NOT NULL)`,
    ]);
  }

  /** Real time, like the session's own expiry: the simulated clock must not bring a revoked cookie back. */
  async revoke(session: PageSession, nowMs: number): Promise<void> {
    await this.pool.query(`DELETE FROM ${TABLE} WHERE expires_at < $1`, [new Date(nowMs)]);
    await this.pool.query(
      `INSERT INTO ${TABLE} (session_id, expires_at, revoked_at) VALUES ($1, $2, $3) ON CONFLICT (session_id) DO NOTHING`,
      [session.id, new Date(session.expiresAt), new Date(nowMs)],
    );
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    const found = await this.pool.query(`SELECT 1 FROM ${TABLE} WHERE session_id = $1`, [sessionId]);
    return (found.rowCount ?? 0) > 0;
  }
}

/** The session a cookie carries, when it is signed by us, not expired and not signed out; throws when that cannot be known. */
export const liveSession = async (
  sessions: { read(cookie: string | undefined, nowMs: number): PageSession | null },
  revocations: SessionRevocations,
  cookie: string | undefined,
  nowMs: number,
): Promise<PageSession | null> => {
  const session = sessions.read(cookie, nowMs);
  if (!session || (await revocations.isRevoked(session.id))) return null;
  return session;
};
