import pg from 'pg';
import { freeLoopbackPort } from '../net/free-port.js';
import { type ThrowawayPostgres, type ThrowawayStandby, throwawayPostgres, throwawayStandby } from '../testing/throwaway-postgres.js';
import { isDatabaseConnectionError } from './database-unavailable.js';
import { parsePostgresUrl } from './postgres-url.js';
import { NoWritableHostError, PrimaryLocator } from './primary-locator.js';

/*
 * READ_REPLICA_URL's locator on real servers: a primary of the test's own and a hot standby streaming
 * from it (pg_basebackup), stopped, started and at last promoted; a port where nothing listens.
 */
describe('PrimaryLocator for a replica URL: standby and prefer-standby, on a real streaming standby', () => {
  let primary: ThrowawayPostgres;
  let standby: ThrowawayStandby;
  let gone: number;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    primary = await throwawayPostgres();
    standby = await throwawayStandby(primary);
    gone = await freeLoopbackPort();
  }, 60_000);

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => undefined)));
  });

  afterAll(() => {
    standby?.destroy();
    primary?.destroy();
  });

  const hostList = (ports: number[], attrs: string): string =>
    `postgres://postgres@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/postgres?target_session_attrs=${attrs}`;

  const poolOn = (locator: PrimaryLocator): pg.Pool => {
    const pool = new pg.Pool({ ...locator.poolOptions(), max: 2, connectionTimeoutMillis: 2000 });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };

  const where = async (pool: pg.Pool): Promise<{ port: number; standby: boolean }> => {
    const row = (await pool.query<{ port: number; standby: boolean }>('SELECT inet_server_port() AS port, pg_is_in_recovery() AS standby')).rows[0];
    return { port: Number(row?.port), standby: row?.standby === true };
  };

  it('standby: keeps the host in recovery wherever it is in the list, and the pool reads there', async () => {
    const locator = new PrimaryLocator(parsePostgresUrl(hostList([gone, primary.port, standby.port], 'standby')));
    expect(locator.matches).toBe(false);
    await expect(locator.locate()).resolves.toBe(`127.0.0.1:${standby.port}`);
    expect(locator.matches).toBe(true);
    expect(await where(poolOn(locator))).toEqual({ port: standby.port, standby: true });
  });

  it('prefer-standby: settles for the primary while no standby answers (matches false), and moves to the standby when it is back', async () => {
    const locator = new PrimaryLocator(parsePostgresUrl(hostList([primary.port, standby.port], 'prefer-standby')));
    standby.stop();
    try {
      await expect(locator.locate()).resolves.toBe(`127.0.0.1:${primary.port}`);
      expect(locator.matches).toBe(false);
      expect(await where(poolOn(locator))).toEqual({ port: primary.port, standby: false });
    } finally {
      standby.start();
    }
    await expect(locator.locate()).resolves.toBe(`127.0.0.1:${standby.port}`);
    expect(locator.matches).toBe(true);
    const pool = poolOn(locator);
    expect(await where(pool)).toEqual({ port: standby.port, standby: true });
  });

  it('standby: no standby is a connection error (class 08) that says so, never the primary', async () => {
    standby.stop();
    try {
      const locator = new PrimaryLocator(parsePostgresUrl(hostList([primary.port, standby.port], 'standby')));
      const error: unknown = await locator.locate().then(() => null, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(NoWritableHostError);
      expect((error as Error).message).toBe(`no host of 127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres is a standby now`);
      expect((error as NoWritableHostError).reasons).toEqual([`127.0.0.1:${primary.port}: not in recovery`, expect.stringContaining(`127.0.0.1:${standby.port}: `)]);
      expect(isDatabaseConnectionError(error)).toBe(true);
      expect(locator.matches).toBe(false);
    } finally {
      standby.start();
    }
  });

  // Last: the promotion leaves no standby behind.
  it('standby: after the standby is promoted, a new connection on it fails at once and the next locate finds none', async () => {
    const locator = new PrimaryLocator(parsePostgresUrl(hostList([primary.port, standby.port], 'standby')));
    await locator.locate();
    standby.promote();
    const pool = poolOn(locator);
    const error: unknown = await pool.query('SELECT 1').then(() => null, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(NoWritableHostError);
    expect((error as NoWritableHostError).reasons).toEqual([`127.0.0.1:${standby.port} is not in recovery`]);
    await expect(locator.locate()).rejects.toThrow(/is a standby now/);
    expect(locator.matches).toBe(false);
  });
});
