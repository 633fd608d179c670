import pg from 'pg';
import type { Logger } from 'pino';

const RECONNECT_ATTEMPTS = 5;
const RECONNECT_DELAY_MS = 20;

/** The server answered with an error (bad input, constraint, …): the connection itself is fine. */
const isStatementError = (error: unknown): boolean =>
  error instanceof pg.DatabaseError || (typeof error === 'object' && error !== null && 'severity' in error && 'code' in error);

const isReadOnly = (query: string | pg.QueryConfig): boolean => /^\s*select\b/i.test(typeof query === 'string' ? query : query.text);

const pause = (ms: number): Promise<void> => new Promise((resolvePause) => setTimeout(resolvePause, ms));

/**
 * The one-connection pool of the embedded store. pg-pool's `query` destroys the connection after ANY
 * failed statement, so one bad statement closed it under every request in flight, and the replacement
 * raced the old one's teardown (EPIPE, ECONNRESET). Here a statement error keeps the connection; a
 * broken one is replaced at once, with a few quick attempts; a read caught in the break is retried, a
 * write fails alone (its caller decides: appends are checked by revision).
 */
export const createEmbeddedPool = (config: pg.PoolConfig, logger: Logger): pg.Pool => {
  // idleTimeoutMillis 0: keep the one connection rather than reconnect, since the server admits one.
  const pool = new pg.Pool({ ...config, max: 1, idleTimeoutMillis: 0 });
  pool.on('error', (error) => logger.warn({ err: error.message }, 'embedded PGlite connection failed; it is replaced on next use'));
  // PGlite's one session outlives a connection: a replacement connection would find the statements
  // its predecessor prepared and collide with them. Each new connection starts with none (queued
  // before any other statement of the client), so named prepared statements are safe here.
  pool.on('connect', (client) => {
    client.query('DEALLOCATE ALL').catch((error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'DEALLOCATE ALL failed on a new embedded connection'));
  });

  const connect = async (): Promise<pg.PoolClient> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await pool.connect();
      } catch (error) {
        if (attempt >= RECONNECT_ATTEMPTS || (pool as { ending?: boolean }).ending) throw error;
        await pause(RECONNECT_DELAY_MS * attempt);
      }
    }
  };

  const query = async (text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> => {
    for (let attempt = 1; ; attempt += 1) {
      const client = await connect();
      try {
        const result = await client.query(text, values);
        client.release();
        return result;
      } catch (error) {
        if (isStatementError(error)) {
          client.release();
          throw error;
        }
        client.release(error instanceof Error ? error : true);
        if (attempt > 1 || !isReadOnly(text)) throw error;
        logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'embedded PGlite connection broke during a read; retrying it');
      }
    }
  };
  // Every caller uses the promise form (text or config, values): that is the form kept.
  pool.query = query as unknown as pg.Pool['query'];
  return pool;
};
