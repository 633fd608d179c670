import pg from 'pg';
import { freeLoopbackPort } from '../net/free-port.js';
import { type ThrowawayPostgres, throwawayPostgres } from '../testing/throwaway-postgres.js';
import { isDatabaseConnectionError } from './database-unavailable.js';
import { parsePostgresUrl } from './postgres-url.js';
import { NoWritableHostError, type PrimaryChange, PrimaryLocator } from './primary-locator.js';

/*
 * Real servers: two PostgreSQL servers of the test's own (no TLS) that it turns read-only as a
 * switchover drains a primary, a port where nothing listens (a host gone), and the machine's server.
 */
describe('PrimaryLocator: the writable host of a host list, on real servers', () => {
  let first: ThrowawayPostgres;
  let second: ThrowawayPostgres;
  let gone: number;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    [first, second] = await Promise.all([throwawayPostgres(), throwawayPostgres()]);
    gone = await freeLoopbackPort();
  }, 60_000);

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => undefined)));
    await Promise.all([first.setReadOnly(false), second.setReadOnly(false)]);
  });

  afterAll(() => {
    first?.destroy();
    second?.destroy();
  });

  const hostList = (ports: number[], query = 'target_session_attrs=read-write'): string =>
    `postgres://postgres@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/postgres?${query}`;

  const poolOn = (locator: PrimaryLocator): pg.Pool => {
    const pool = new pg.Pool({ ...locator.poolOptions(), max: 4, connectionTimeoutMillis: 2000 });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };

  const serverPort = async (pool: pg.Pool): Promise<number> =>
    Number((await pool.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]?.port);

  it('skips a host that is gone and one that is read-only, and opens the pool\'s connections on the writable one', async () => {
    await first.setReadOnly(true);
    const changes: PrimaryChange[] = [];
    const locator = new PrimaryLocator(parsePostgresUrl(hostList([gone, first.port, second.port])), { onPrimaryChange: (change) => changes.push(change) });
    expect(locator.primary).toBeNull();
    await expect(locator.locate()).resolves.toBe(`127.0.0.1:${second.port}`);
    expect(locator.primary).toBe(`127.0.0.1:${second.port}`);
    const pool = poolOn(locator);
    expect(await serverPort(pool)).toBe(second.port);
    await pool.query('CREATE TEMP TABLE written (id int); INSERT INTO written VALUES (1)');
    expect(changes).toEqual([]);
  });

  it('follows a switchover: the drained primary refuses writes, the next locate moves every new connection to the new one and cuts the old ones', async () => {
    const changes: PrimaryChange[] = [];
    const locator = new PrimaryLocator(parsePostgresUrl(hostList([first.port, second.port])), { onPrimaryChange: (change) => changes.push(change) });
    await second.setReadOnly(true);
    await locator.locate();
    const pool = poolOn(locator);
    const held = await pool.connect();
    expect(Number((await held.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]?.port)).toBe(first.port);
    const heldErrors: Error[] = [];
    held.on('error', (error) => heldErrors.push(error));

    // The switchover: the old primary drains (read-only while it still answers), the standby is promoted.
    await Promise.all([first.setReadOnly(true), second.setReadOnly(false)]);
    const refused: unknown = await held.query('CREATE TEMP TABLE t (id int)').then(() => null, (error: unknown) => error);
    expect((refused as { code?: string }).code).toBe('25006');
    expect(isDatabaseConnectionError(refused)).toBe(true);

    await expect(locator.locate()).resolves.toBe(`127.0.0.1:${second.port}`);
    expect(changes).toEqual([{ from: `127.0.0.1:${first.port}`, to: `127.0.0.1:${second.port}` }]);
    // The connection on the old primary was cut as a restart cuts it: its holder hears it, the pool drops it.
    await new Promise((resolveLater) => setTimeout(resolveLater, 100));
    expect(heldErrors.length).toBe(1);
    held.release(heldErrors[0]);
    expect(await serverPort(pool)).toBe(second.port);
    await pool.query('CREATE TEMP TABLE after_switchover (id int)');
  });

  it('fails a new connection at once, as a connection error, on a host that stopped being writable before anyone located again', async () => {
    const locator = new PrimaryLocator(parsePostgresUrl(hostList([first.port, second.port])));
    await locator.locate();
    await first.setReadOnly(true);
    const pool = poolOn(locator);
    const error: unknown = await pool.query('SELECT 1').then(() => null, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(NoWritableHostError);
    expect(isDatabaseConnectionError(error)).toBe(true);
    // That failure started a locate of its own: the next connection is on the writable host.
    await new Promise((resolveLater) => setTimeout(resolveLater, 500));
    expect(locator.primary).toBe(`127.0.0.1:${second.port}`);
    expect(await serverPort(pool)).toBe(second.port);
  });

  it('says "no writable host" (class 08: an outage to wait out) when every host is gone or read-only', async () => {
    await Promise.all([first.setReadOnly(true), second.setReadOnly(true)]);
    const locator = new PrimaryLocator(parsePostgresUrl(hostList([first.port, gone, second.port])));
    const error: unknown = await locator.locate().then(() => null, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(NoWritableHostError);
    expect((error as NoWritableHostError).code).toBe('08001');
    expect((error as NoWritableHostError).reasons).toEqual([
      `127.0.0.1:${first.port}: read-only`, expect.stringContaining(`127.0.0.1:${gone}: `), `127.0.0.1:${second.port}: read-only`,
    ]);
    expect(isDatabaseConnectionError(error)).toBe(true);
  });

  it('passes on the operator\'s own mistakes (a database that does not exist) instead of waiting for them', async () => {
    const locator = new PrimaryLocator(parsePostgresUrl(`postgres://postgres@127.0.0.1:${first.port},127.0.0.1:${second.port}/no_such_database?target_session_attrs=read-write`));
    const error: unknown = await locator.locate().then(() => null, (failure: unknown) => failure);
    expect((error as { code?: string }).code).toBe('3D000');
    expect(isDatabaseConnectionError(error)).toBe(false);
  });

  it('reads sslmode=prefer as libpq does: TLS where the server has it, plain where it has not', async () => {
    const locator = new PrimaryLocator(parsePostgresUrl(hostList([first.port], 'target_session_attrs=read-write&sslmode=prefer')));
    await locator.locate();
    const pool = poolOn(locator);
    const ssl = await pool.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
    expect(ssl.rows[0]?.ssl).toBe(false);
  });
});
