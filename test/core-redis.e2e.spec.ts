import { jest } from '@jest/globals';
import { api, internal, request } from './support/client.js';
import { type Workspace, createAssessment, email, expectError, invite } from './support/core-helpers.js';
import { TcpRelay } from './support/core-process.js';
import { type RunningService, startService } from './support/service.js';

// Many requests per test on a shared, often loaded machine: the 5 s default is too tight.
jest.setTimeout(30_000);

describe('Redis outages: 500 server_error in the error shape, never internals', () => {
  let relay: TcpRelay;
  let service: RunningService;
  let app: ReturnType<typeof internal>;
  let ws: Workspace;
  let assessment: Record<string, any>;

  beforeAll(async () => {
    // The service reaches Redis through a relay that the test can cut and restore.
    relay = await TcpRelay.start({ host: '127.0.0.1', port: 6379 });
    service = await startService({ REDIS_URL: `redis://127.0.0.1:${relay.port}` });
    app = internal(service);
    ws = await app.workspace({ name: 'Outage' });
    assessment = await createAssessment(service, ws.live);
  }, 60_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
    await relay?.cut();
  });

  const liveKey = async (): Promise<string> => {
    const issued = (await app.call('POST', `/internal/workspaces/${ws.id}/api-keys`, { mode: 'live' })).body.data;
    return `${issued.key}:${issued.secret}`;
  };

  it('Redis gone while running: authenticated requests answer 500 server_error without internals; it recovers when Redis is back', async () => {
    const key = await liveKey();
    expect((await api(service, key).get('/v1/me')).status).toBe(200);
    await relay.cut();
    try {
      // Concurrently: each one waits for the Redis client to give up (its retries back off).
      const answers = await Promise.all([
        api(service, key).get('/v1/me'),
        api(service, key).get('/v1/tests'),
        api(service, key, '/api').get(`/v1/assessments/${assessment.id}`),
        invite(service, key, assessment.id, [{ email: email('no-redis') }], { 'Idempotency-Key': 'no-redis' }),
      ]);
      for (const answer of answers) {
        expectError(answer, 500, 'server_error');
        expect(answer.text).not.toMatch(/ECONNREFUSED|Redis|redis|stack|\bat \w|node_modules|\/work\//);
      }
      // Authentication still comes first.
      expectError(await api(service, `${ws.liveKey.key}:wrong`).get('/v1/me'), 401, 'unauthorized');
      expectError(await request(`${service.baseUrl}/v1/me`), 401, 'unauthorized');
    } finally {
      await relay.open();
    }
    let recovered = 0;
    for (let attempt = 0; attempt < 100 && recovered !== 200; attempt += 1) {
      recovered = (await api(service, key).get('/v1/me')).status;
      if (recovered !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recovered).toBe(200);
    // The refused invitation did not happen, and its key is unused.
    const retried = await invite(service, key, assessment.id, [{ email: 'after.outage@example.com' }], { 'Idempotency-Key': 'no-redis' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  }, 45_000);

  it('started with Redis unreachable: it starts (degraded), and an authenticated request answers 500 server_error in the error shape', async () => {
    // startService waits for the start banner and a health answer below 500: a service that hangs at start fails here.
    const noRedis = await startService({ REDIS_URL: 'redis://127.0.0.1:6390' });
    try {
      const tool = internal(noRedis);
      const health = await tool.call('GET', '/internal/health');
      expect(health.status).toBe(200);
      expect(health.body.data).toMatchObject({ status: 'degraded', redis: 'unreachable' });
      const created = await tool.call('POST', '/internal/workspaces', { name: 'No Redis' });
      expect(created.status).toBe(201);
      const issued = (await tool.call('POST', `/internal/workspaces/${created.body.data.id}/api-keys`, { mode: 'live' })).body.data;
      const answer = await request(`${noRedis.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${issued.key}:${issued.secret}` } });
      expectError(answer, 500, 'server_error');
      expect(answer.text).not.toMatch(/ECONNREFUSED|6390|stack|\bat \w|node_modules|\/work\//);
      expectError(await request(`${noRedis.baseUrl}/v1/me`), 401, 'unauthorized');
    } finally {
      await noRedis.stop('SIGKILL');
    }
  }, 90_000);
});
