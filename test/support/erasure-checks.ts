import { Redis } from 'ioredis';
import pg from 'pg';
import { PersonKeyStore } from '#event-store/personal-data/person-keys.js';

/**
 * What the erasure of a deleted test candidate must leave behind, read from the stores themselves
 * (as test/audit-erasure.e2e.spec.ts reads them): the person's keys, every table, every Redis key.
 */

/** The person's rows in person_keys (named by the keyed address hash, as the service names them): live and destroyed. */
export const personKeys = async (url: string, serviceSecret: string, workspaceId: string, email: string): Promise<{ live: number; destroyed: number }> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The hash only: the store's constructor keeps the pool and never uses it for that.
    const addressHash = new PersonKeyStore(client as unknown as pg.Pool, serviceSecret).addressHash(workspaceId, email);
    const { rows } = await client.query<{ live: number; destroyed: number }>(
      `SELECT count(*) FILTER (WHERE sealed_key IS NOT NULL)::int AS live, count(*) FILTER (WHERE sealed_key IS NULL)::int AS destroyed
       FROM public.person_keys WHERE workspace_id = $1 AND address_hash = $2`,
      [workspaceId, addressHash],
    );
    return rows[0] ?? { live: 0, destroyed: 0 };
  } finally {
    await client.end();
  }
};

/** Every row of every table, as text, that mentions one of the values. */
export const tablesMentioning = async (url: string, needles: readonly string[]): Promise<string[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    const found: string[] = [];
    for (const { schema, name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${name}" t`);
      for (const { row } of rows.rows) if (needles.some((needle) => row.includes(needle))) found.push(`${schema}.${name}: ${row.slice(0, 300)}`);
    }
    return found;
  } finally {
    await client.end();
  }
};

/** Every Redis key whose name or value (any type) mentions one of the values. */
export const redisMentioning = async (redis: Redis, needles: readonly string[]): Promise<string[]> => {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let text = '';
      if (type === 'string') text = (await redis.get(key)) ?? '';
      else if (type === 'hash') text = JSON.stringify(await redis.hgetall(key));
      else if (type === 'list') text = JSON.stringify(await redis.lrange(key, 0, -1));
      else if (type === 'set') text = JSON.stringify(await redis.smembers(key));
      else if (type === 'zset') text = JSON.stringify(await redis.zrange(key, '0', '-1'));
      else if (type === 'stream') text = JSON.stringify(await redis.xrange(key, '-', '+'));
      if (needles.some((needle) => text.includes(needle) || key.includes(needle))) found.push(`${type} ${key}`);
    }
  } while (cursor !== '0');
  return found;
};

/**
 * Polls `read` until `done` holds or `ms` pass, and returns the last value read: the caller asserts
 * on it, so a timeout fails with what was last seen rather than with "timed out".
 */
export const settled = async <T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};
