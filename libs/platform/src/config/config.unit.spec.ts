import { loadConfig } from './config.js';
import { StartRefused } from './start-refused.js';

/** The refusal loadConfig throws for `env`, or null when it accepts it. */
const refusal = (env: NodeJS.ProcessEnv): unknown => {
  try {
    loadConfig(env);
    return null;
  } catch (error) {
    return error;
  }
};

describe('settings a start cannot use are refused as StartRefused (one line, no stack trace)', () => {
  it.each([
    [{ PORT: 'abc' }, /^PORT must be a whole number/],
    [{ EVENT_STORE_URL: 'mysql://app:secret-pw@db/hiring' }, /^EVENT_STORE_URL must be a postgres:\/\/ or esdb:\/\/ \(or kurrentdb:\/\/\) URL$/],
    [{ EVENT_STORE_URL: 'postgress://app:secret-pw@db/hiring' }, /^EVENT_STORE_URL must be a postgres:\/\//],
    [{ READ_STORE_URL: 'mongo://app:secret-pw@db/hiring' }, /^READ_STORE_URL must be a postgres:\/\/ or mongodb:\/\/ URL$/],
    [{ EVENT_STORE_URL: 'postgres://app:secret-pw@h1,/hiring' }, /^EVENT_STORE_URL has an empty host/],
    [{ REDIS_URL: 'foo://app:secret-pw@bar:6379' }, /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL$/],
    [{ REDIS_SENTINELS: 'a:b:c' }, /^REDIS_SENTINELS must be a comma-separated list of host:port/],
    [{ READ_REPLICA_URL: 'postgres://h2/hiring?target_session_attrs=standby' }, /needs the read models on a PostgreSQL server/],
  ])('%j', (env, message) => {
    const error = refusal(env);
    expect(error).toBeInstanceOf(StartRefused);
    expect((error as Error).message).toMatch(message);
    // A URL may hold a password: the refusal names the setting, never the value.
    expect((error as Error).message).not.toContain('secret-pw');
  });

  it.each([
    { EVENT_STORE_URL: 'esdb://localhost:2113?tls=false' }, { EVENT_STORE_URL: 'kurrentdb+discover://cluster.local:2113' },
    { EVENT_STORE_URL: 'postgresql://app@db/hiring', READ_STORE_URL: 'mongodb+srv://cluster.example/hiring' }, { READ_STORE_URL: 'mongodb://localhost/hiring' },
    { REDIS_URL: 'rediss://app:pw@cache.example:6380/2' }, { REDIS_URL: 'REDIS://127.0.0.1' }, { REDIS_URL: '127.0.0.1:6379' }, { REDIS_URL: '/run/redis.sock' },
  ])('accepts the stores each setting may name: %j', (env) => {
    expect(refusal(env)).toBeNull();
  });
});
