import { loadConfig } from '../config/config.js';
import { parseSentinels, redisTargetAddress } from './redis-target.js';

describe('Redis through Sentinel: the settings', () => {
  it('reads REDIS_SENTINELS as host:port entries, 26379 by default, IPv6 in brackets', () => {
    expect(parseSentinels('10.0.0.1:26379, sentinel-b ,[::1]:26380')).toEqual([
      { host: '10.0.0.1', port: 26379 }, { host: 'sentinel-b', port: 26379 }, { host: '::1', port: 26380 },
    ]);
    expect(() => parseSentinels(' , ')).toThrow(/at least one/);
    expect(() => parseSentinels('a:0')).toThrow(/host:port/);
    expect(() => parseSentinels('a:b:c')).toThrow(/host:port/);
  });

  it('uses Sentinel when REDIS_SENTINELS is set, with the master name mymaster by default and the passwords apart', () => {
    const config = loadConfig({ REDIS_SENTINELS: '127.0.0.1:26379,127.0.0.1:26380', REDIS_SENTINEL_PASSWORD: 's-secret', REDIS_PASSWORD: 'r-secret' });
    expect(config.redis).toEqual({
      kind: 'sentinel', sentinels: [{ host: '127.0.0.1', port: 26379 }, { host: '127.0.0.1', port: 26380 }], name: 'mymaster', sentinelPassword: 's-secret', password: 'r-secret',
    });
    // An address is given: the standalone service starts no redis-server of its own.
    expect(config.redisUrlGiven).toBe(true);
    expect(redisTargetAddress(config.redis)).toBe('sentinel mymaster at 127.0.0.1:26379,127.0.0.1:26380');
    expect(loadConfig({ REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: 'hiring' }).redis).toMatchObject({ name: 'hiring', sentinelPassword: null, password: null });
  });

  it('keeps REDIS_URL as today without REDIS_SENTINELS, REDIS_PASSWORD beside it', () => {
    expect(loadConfig({}).redis).toEqual({ kind: 'url', url: 'redis://127.0.0.1:6379', password: null });
    expect(loadConfig({}).redisUrlGiven).toBe(false);
    const config = loadConfig({ REDIS_URL: 'redis://u:inline@10.1.1.1:6390/2', REDIS_PASSWORD: 'p' });
    expect(config.redis).toEqual({ kind: 'url', url: 'redis://u:inline@10.1.1.1:6390/2', password: 'p' });
    expect(redisTargetAddress(config.redis)).toBe('10.1.1.1:6390');
  });
});

describe('PostgreSQL host lists: the settings', () => {
  it('accepts a libpq host list for EVENT_STORE_URL and READ_STORE_URL, multi-process as any PostgreSQL URL', () => {
    const url = 'postgres://app@h1:5432,h2:5432/hiring?target_session_attrs=read-write&sslmode=prefer';
    const config = loadConfig({ EVENT_STORE_URL: url, READ_STORE_URL: url.replace('read-write', 'primary') });
    expect(config.eventStoreUrl).toBe(url);
    expect(config.deployment).toBe('multi-process');
  });

  it('refuses, at start, a primary URL that asks for a standby or that it cannot read', () => {
    expect(() => loadConfig({ EVENT_STORE_URL: 'postgres://h1,h2/db?target_session_attrs=standby' })).toThrow(/EVENT_STORE_URL must reach the primary/);
    expect(() => loadConfig({ READ_STORE_URL: 'postgres://h1,h2/db?target_session_attrs=prefer-standby' })).toThrow(/READ_STORE_URL must reach the primary/);
    expect(() => loadConfig({ EVENT_STORE_URL: 'postgres://u:pw@h1,/db' })).toThrow(/EVENT_STORE_URL has an empty host/);
    // Other stores' URLs are theirs to read.
    expect(loadConfig({ EVENT_STORE_URL: 'esdb://a:2113,b:2113?tls=false' }).eventStoreUrl).toBe('esdb://a:2113,b:2113?tls=false');
  });

  it('takes READ_REPLICA_URL asking for a standby beside read models in PostgreSQL, and refuses it otherwise', () => {
    const primary = 'postgres://app@h1:5432,h2:5432/hiring?target_session_attrs=read-write';
    const replicas = 'postgres://app@h1:5432,h2:5432/hiring?target_session_attrs=prefer-standby';
    expect(loadConfig({ EVENT_STORE_URL: primary, READ_REPLICA_URL: replicas }).readReplicaUrl).toBe(replicas);
    expect(loadConfig({ EVENT_STORE_URL: primary }).readReplicaUrl).toBeNull();
    // One standby given by its address alone, with the attribute.
    expect(loadConfig({ EVENT_STORE_URL: primary, READ_REPLICA_URL: 'postgres://app@h2/hiring?target_session_attrs=standby' }).readReplicaUrl).toContain('h2');
    // A separate PostgreSQL read store: its standbys.
    expect(loadConfig({ EVENT_STORE_URL: 'esdb://a:2113?tls=false', READ_STORE_URL: primary, READ_REPLICA_URL: replicas }).readReplicaUrl).toBe(replicas);
    expect(() => loadConfig({ EVENT_STORE_URL: primary, READ_REPLICA_URL: primary })).toThrow(/READ_REPLICA_URL must ask for a standby/);
    expect(() => loadConfig({ EVENT_STORE_URL: primary, READ_REPLICA_URL: 'postgres://app@h2/hiring' })).toThrow(/READ_REPLICA_URL must ask for a standby/);
    expect(() => loadConfig({ EVENT_STORE_URL: primary, READ_REPLICA_URL: 'mongodb://h2/hiring' })).toThrow(/READ_REPLICA_URL must be a postgres/);
    // Read models in PGlite or MongoDB have no PostgreSQL standbys.
    expect(() => loadConfig({ READ_REPLICA_URL: replicas })).toThrow(/needs the read models on a PostgreSQL server/);
    expect(() => loadConfig({ EVENT_STORE_URL: primary, READ_STORE_URL: 'mongodb://m/hiring', READ_REPLICA_URL: replicas })).toThrow(/needs the read models on a PostgreSQL server/);
  });
});
