import { api, internal, request } from './support/client.js';
import { type RunningService, startService } from './support/service.js';

/**
 * Failed authentication from one address (every request here comes from 127.0.0.1): past
 * AUTH_FAILURES_PER_MINUTE (100 by default) the address's failures are answered 429, while valid keys
 * from the same address (integrators sharing a NAT or a proxy with a guesser) are served as ever.
 */
describe('failed authentication from a shared address', () => {
  let service: RunningService;
  let app: ReturnType<typeof internal>;

  beforeAll(async () => {
    service = await startService();
    app = internal(service);
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('after 100 failures a wrong key is answered 429 while valid keys from the same address are served, each in its own workspace', async () => {
    const acme = await app.workspace({ name: 'Acme' });
    const other = await app.workspace({ name: 'Other' });
    const wrong = `${acme.liveKey.key}:not-the-secret`;
    const legacy = (credential: string) => request(`${service.baseUrl}/candidates`, { headers: { authorization: `Bearer ${credential}` } });

    // Below the limit: 401, and 403 in its own shape on the original endpoint.
    expect((await legacy(wrong)).status).toBe(403);
    const statuses: number[] = [];
    for (let attempt = 1; attempt < 100; attempt += 1) {
      const credential = attempt % 2 === 0 ? wrong : `live_nosuchkey${String(attempt).padStart(10, '0')}:x`;
      statuses.push((await api(service, credential).get('/v1/me')).status);
    }
    expect(statuses).toEqual(new Array(99).fill(401));

    // The 101st failure and every one after it, whatever the credential's problem.
    for (const credential of [wrong, 'live_nosuchkey:x', acme.liveKey.key]) {
      const refused = await api(service, credential).get('/v1/me');
      expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({ status: 429, code: 'rate_limited' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // No key was authenticated: none of the rate-limit headers, which describe a key's 120 a minute (docs/operations.md).
      expect({ limit: refused.headers.get('x-ratelimit-limit'), remaining: refused.headers.get('x-ratelimit-remaining') }).toEqual({ limit: null, remaining: null });
    }
    const legacyRefused = await legacy(wrong);
    expect(legacyRefused.status).toBe(429);
    expect(legacyRefused.body).toEqual({ status: '429', code: expect.any(String) });
    expect(Number(legacyRefused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Valid keys from the same address: served, counted against their own per-key limit, each in its workspace.
    for (const [workspace, credential] of [[acme, acme.live], [acme, acme.sandbox], [other, other.live]] as const) {
      const me = await api(service, credential).get('/v1/me');
      expect({ status: me.status, workspace: me.body?.data?.workspace?.id, remaining: me.headers.get('x-ratelimit-remaining') })
        .toEqual({ status: 200, workspace: workspace.id, remaining: '119' });
    }
    const legacyServed = await legacy(acme.live);
    expect(legacyServed.status).toBe(200);
    expect(legacyServed.body).toMatchObject({ count: 0, results: [] });

    // Still refused afterwards: a valid key's success does not reset the address's count.
    expect((await api(service, wrong).get('/v1/me')).status).toBe(429);
  }, 60_000);
});
