import { parsePostgresUrl } from './postgres-url.js';

describe('parsePostgresUrl', () => {
  it('reads the URI pg_autoctl show uri prints: two hosts, target_session_attrs, sslmode', () => {
    const target = parsePostgresUrl('postgres://127.0.0.1:17001,127.0.0.1:17002/test?target_session_attrs=read-write&sslmode=prefer');
    expect(target.hosts).toEqual([{ host: '127.0.0.1', port: 17001 }, { host: '127.0.0.1', port: 17002 }]);
    expect(target.targetSessionAttrs).toBe('read-write');
    expect(target.hostList).toBe(true);
    expect(target.sslmode).toBe('prefer');
    expect(target.address).toBe('127.0.0.1:17001,127.0.0.1:17002/test');
    // node-postgres gets one host and never the parameter it does not know.
    expect(target.urlFor({ host: '127.0.0.1', port: 17002 })).toBe('postgres://127.0.0.1:17002/test?sslmode=prefer');
    expect(target.urlFor({ host: '127.0.0.1', port: 17002 }, 'disable')).toBe('postgres://127.0.0.1:17002/test?sslmode=disable');
  });

  it('keeps credentials, other parameters, default ports and IPv6 hosts', () => {
    const target = parsePostgresUrl('postgresql://app:s%40cret@db1,[::1]:6543,db3:5433/hiring?application_name=api&target_session_attrs=primary');
    expect(target.hosts).toEqual([{ host: 'db1', port: 5432 }, { host: '::1', port: 6543 }, { host: 'db3', port: 5433 }]);
    expect(target.targetSessionAttrs).toBe('primary');
    expect(target.urlFor({ host: '::1', port: 6543 })).toBe('postgresql://app:s%40cret@[::1]:6543/hiring?application_name=api');
    expect(target.address).toBe('db1:5432,[::1]:6543,db3:5433/hiring');
    expect(target.address).not.toContain('cret');
  });

  it('takes a host list without target_session_attrs as read-write (this service only writes through it)', () => {
    expect(parsePostgresUrl('postgres://u@a:1,b:2/db').targetSessionAttrs).toBe('read-write');
  });

  it('leaves a single host without target_session_attrs to node-postgres, as before', () => {
    const target = parsePostgresUrl('postgres://postgres@127.0.0.1:5432/test');
    expect(target.hostList).toBe(false);
    expect(target.targetSessionAttrs).toBe('any');
    expect(target.urlFor({ host: '127.0.0.1', port: 5432 })).toBe('postgres://postgres@127.0.0.1:5432/test');
  });

  it('takes a single host with target_session_attrs as a list of one (checked writable on every connection)', () => {
    const target = parsePostgresUrl('postgres://postgres@haproxy:5000/test?target_session_attrs=read-write');
    expect(target.hostList).toBe(true);
    expect(target.hosts).toEqual([{ host: 'haproxy', port: 5000 }]);
  });

  it('refuses what it cannot read, naming the setting and never echoing the URL', () => {
    const refusals: [string, RegExp][] = [
      ['mysql://a/b', /must start with postgres/],
      ['postgres://u:topsecret@a:1,,b:2/db', /empty host/],
      ['postgres://u:topsecret@a:1,b:99999/db', /port/],
      ['postgres://u:topsecret@a:x,b:2/db', /cannot read/],
      ['postgres://u:topsecret@a,b/db?target_session_attrs=whatever', /target_session_attrs=whatever/],
      ['postgres://u:topsecret@a,b/db?host=c', /both in the address and in host\/port/],
    ];
    for (const [url, reason] of refusals) {
      expect(() => parsePostgresUrl(url, 'EVENT_STORE_URL')).toThrow(reason);
      try {
        parsePostgresUrl(url, 'EVENT_STORE_URL');
      } catch (error) {
        expect((error as Error).message).toMatch(/^EVENT_STORE_URL /);
        expect((error as Error).message).not.toContain('topsecret');
      }
    }
  });
});
