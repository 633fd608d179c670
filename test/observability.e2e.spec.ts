import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '#platform';
import { internal, request } from './support/client.js';
import { createAssessment, email, invite } from './support/core-helpers.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { MetricsText, probe, scrape } from './support/metrics.js';
import { ADMIN_URL, type AppProcess, freshDatabase, startApp } from './support/processes.js';
import { spawnService } from './support/core-process.js';
import { type RunningService, deleteQueueKeys, startService } from './support/service.js';

/** Every family docs/operations.md lists ("Metrics"). */
const FAMILIES = [
  'hiring_http_request_duration_seconds', 'hiring_nodejs_eventloop_lag_seconds', 'hiring_nodejs_eventloop_lag_p99_seconds', 'hiring_db_pool_connections',
  'hiring_event_store_append_seconds', 'hiring_event_store_append_group_size', 'hiring_event_store_head_position', 'hiring_projection_lag_events',
  'hiring_projection_lag_seconds', 'hiring_dispatcher_lag_events', 'hiring_dispatcher_lag_seconds', 'hiring_queue_jobs', 'hiring_queue_jobs_finished_total',
  'hiring_webhook_attempt_duration_seconds', 'hiring_http_refusals_total', 'hiring_ready', 'hiring_ready_check',
];

const waitUntil = async <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
  }
};

const expectHealthy = async (baseUrl: string): Promise<void> => {
  for (const path of ['/health/live', '/health/ready']) expect(await probe(`${baseUrl}${path}`)).toEqual({ status: 200, body: { status: 'ok' } });
};

describe('health and metrics of one process (npm start)', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startService({ WEBHOOK_ALLOW_INSECURE: 'true' });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
  });

  it('leaves nothing of its warm-up before listening: no event appended, no refusal counted, no key looked up in Redis', async () => {
    // First in this file: nothing has been asked of the service yet (no demo workspace either).
    const metrics = await scrape(service.internalUrl, service.internalToken);
    expect(metrics.sum('hiring_event_store_append_seconds_count')).toBe(0);
    expect(metrics.sum('hiring_event_store_head_position')).toBe(0);
    expect(metrics.sum('hiring_http_refusals_total')).toBe(0);
    expect(metrics.sum('hiring_http_request_duration_seconds_count', { app: 'api' })).toBe(0);
  });

  it('answers live and ready on both ports without credentials, with the status alone', async () => {
    for (const url of [service.baseUrl, service.internalUrl]) {
      await expectHealthy(url);
      // A credential, even a wrong one, changes nothing: these paths know none.
      const withWrongToken = await fetch(`${url}/health/ready`, { headers: { authorization: 'Bearer wrong' } });
      expect(withWrongToken.status).toBe(200);
      expect(await withWrongToken.json()).toEqual({ status: 'ok' });
    }
  });

  it('serves /metrics only with the internal token, in the documented error shape otherwise', async () => {
    const ws = await internal(service).workspace();
    for (const url of [service.baseUrl, service.internalUrl]) {
      for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${ws.live}`, `Basic ${service.internalToken}`]) {
        const refused = await fetch(`${url}/metrics`, authorization === undefined ? {} : { headers: { authorization } });
        expect(refused.status).toBe(401);
        expect(await refused.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      }
      const answered = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${service.internalToken}` } });
      expect(answered.status).toBe(200);
      expect(answered.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const families = new MetricsText(await answered.text()).families();
      for (const family of FAMILIES) expect([family, families.has(family)]).toEqual([family, true]);
    }
  });

  it('counts a request under its route template, and a failed authentication as a refusal', async () => {
    const ws = await internal(service).workspace();
    const route = { app: 'api', method: 'GET', route: '/v1/candidates/:candidateId', status: '404' };
    const before = await scrape(service.baseUrl, service.internalToken);
    const missing = `cand_${Date.now().toString(36)}missing`;
    expect((await request(`${service.baseUrl}/v1/candidates/${missing}`, { headers: { authorization: `Bearer ${ws.live}` } })).status).toBe(404);
    expect((await request(`${service.baseUrl}/v1/me`, { headers: { authorization: 'Bearer live_nosuchkey:nosuchsecret' } })).status).toBe(401);
    // Both ports share the process's one registry.
    const after = await scrape(service.internalUrl, service.internalToken);
    expect(after.sum('hiring_http_request_duration_seconds_count', route) - before.sum('hiring_http_request_duration_seconds_count', route)).toBe(1);
    expect(after.sum('hiring_http_refusals_total', { reason: 'auth_failed' }) - before.sum('hiring_http_refusals_total', { reason: 'auth_failed' })).toBe(1);
    expect(after.text).not.toContain(missing);
    expect(after.text).not.toContain('nosuchkey');
    expect(after.sum('hiring_ready')).toBe(1);
  });

  it('counts appends, webhook deliveries and finished jobs, with no personal data in any label', async () => {
    const ws = await internal(service).workspace();
    expect((await internal(service).call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: receiver.url, events: ['candidateInvited'] })).status).toBe(200);
    const before = await scrape(service.baseUrl, service.internalToken);
    const assessment = await createAssessment(service, ws.live);
    const people = [email('metrics'), email('metrics')];
    expect((await invite(service, ws.live, assessment.id as string, people.map((address) => ({ email: address, firstName: 'Metric' })))).status).toBe(200);
    await receiver.waitFor((requests) => requests.length >= 2, 20_000, 'two webhooks');
    const after = await waitUntil('webhook attempts counted', () => scrape(service.baseUrl, service.internalToken),
      (metrics) => metrics.sum('hiring_webhook_attempt_duration_seconds_count', { outcome: 'succeeded' }) >= 2);
    expect(after.sum('hiring_queue_jobs_finished_total', { queue: 'webhooks', outcome: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(after.sum('hiring_event_store_append_seconds_count')).toBeGreaterThan(before.sum('hiring_event_store_append_seconds_count'));
    expect(after.sum('hiring_event_store_append_group_size_count')).toBeGreaterThan(before.sum('hiring_event_store_append_group_size_count'));
    expect(after.sum('hiring_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    for (const secret of [...people, ws.id, assessment.id as string, receiver.url]) expect(after.text).not.toContain(secret);
  });
});

describe('the start of one process (npm start)', () => {
  it('opens the public API\'s port once all of it is started: at its first answer the internal application answers too', async () => {
    const database = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'hiring-e2e-'));
    const prefix = `e2e-${Math.random().toString(36).slice(2)}`;
    const service = await spawnService({ EVENT_STORE_URL: database.url, DATA_DIR: dataDir, QUEUE_PREFIX: prefix });
    try {
      let ready: number | null = null;
      for (const deadline = Date.now() + 60_000; ready !== 200 && Date.now() < deadline && service.process.exitCode === null;) {
        ready = await fetch(`${service.baseUrl}/health/ready`).then((response) => response.status, () => null);
        if (ready !== 200) await new Promise((resolveWait) => setTimeout(resolveWait, 5));
      }
      expect(ready).toBe(200);
      // Probed every 5 ms: the internal application used to be made, and its port opened, 100-200 ms later.
      expect((await fetch(`${service.internalUrl}/health/live`)).status).toBe(200);
      expect(await service.running(10_000)).toBe(true);
    } finally {
      await service.kill();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
      await deleteQueueKeys(prefix);
    }
  }, 90_000);
});

describe('lag metrics of separate processes on PostgreSQL', () => {
  const token = 'obs-internal-token';
  let database: { url: string; drop: () => Promise<void> };
  let dataDir: string;
  const processes: AppProcess[] = [];
  let apiUrl = '';
  let internalUrl = '';
  let workerUrl = '';
  let worker: AppProcess;
  const queuePrefix = `obs-${Date.now().toString(36)}`;

  beforeAll(async () => {
    database = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'hiring-obs-'));
    const internalPort = await freeLoopbackPort();
    internalUrl = `http://127.0.0.1:${internalPort}`;
    // The followers do all the work (nothing inline), so a stopped worker leaves every read model
    // behind; writes stop waiting for them after 300 ms.
    const env = {
      EVENT_STORE_URL: database.url, SERVICE_SECRET: 'observability-service-secret', INTERNAL_TOKEN: token, DATA_DIR: dataDir,
      QUEUE_PREFIX: queuePrefix, INTERNAL_PORT: String(internalPort), APP_URL: `http://localhost:${internalPort}`, HOST: '127.0.0.1',
      INLINE_PROJECTIONS: 'false', READ_YOUR_WRITES_TIMEOUT_MS: '300',
    };
    const workerPort = await freeLoopbackPort();
    workerUrl = `http://127.0.0.1:${workerPort}`;
    worker = await startApp('worker', { ...env, PORT: String(workerPort) }, async () => (await fetch(`${workerUrl}/health/live`)).status === 200);
    processes.push(worker);
    processes.push(await startApp('simulator', env, async () => (await fetch(`${internalUrl}/health/live`)).status === 200));
    const apiPort = await freeLoopbackPort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    processes.push(await startApp('api', { ...env, PORT: String(apiPort) }, async () => (await fetch(`${apiUrl}/health/live`)).status === 200));
  }, 120_000);

  afterAll(async () => {
    worker?.child.kill('SIGCONT');
    for (const running of processes.reverse()) await running.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    await deleteQueueKeys(queuePrefix);
  }, 60_000);

  it('answers health on the API, internal and worker ports, and metrics on the worker with the token', async () => {
    for (const url of [apiUrl, internalUrl, workerUrl]) await expectHealthy(url);
    expect((await fetch(`${workerUrl}/metrics`)).status).toBe(401);
    const families = (await scrape(workerUrl, token)).families();
    for (const family of ['hiring_queue_jobs_finished_total', 'hiring_webhook_attempt_duration_seconds', 'hiring_projection_lag_seconds', 'hiring_db_pool_connections']) {
      expect([family, families.has(family)]).toEqual([family, true]);
    }
  });

  it('shows the read models and the dispatcher falling behind while the worker is stopped, and catching up after', async () => {
    const call = (method: string, path: string, body?: unknown) => request(`${internalUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body });
    const workspace = (await call('POST', '/internal/workspaces', { name: 'Lag' })).body.data;
    await call('POST', `/internal/workspaces/${workspace.id}/verify`);
    const key = (await call('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).body.data;
    const auth = { authorization: `Bearer ${key.key}:${key.secret}` };
    const created = await request(`${apiUrl}/v1/assessments`, { method: 'POST', headers: auth, body: { name: 'Lag', tests: ['numerical-reasoning'] } });
    expect(created.status).toBe(201);
    const caughtUp = (metrics: MetricsText): boolean =>
      metrics.all('hiring_projection_lag_events').length > 0 && metrics.sum('hiring_projection_lag_events') === 0 && metrics.sum('hiring_dispatcher_lag_events') === 0;
    await waitUntil('caught up before the stop', () => scrape(apiUrl, token), caughtUp);

    worker.child.kill('SIGSTOP');
    try {
      const candidates = Array.from({ length: 5 }, (_, i) => ({ email: `lag${i}@example.com`, firstName: `L${i}` }));
      const invited = await request(`${apiUrl}/v1/assessments/${created.body.data.id}/invitations`, { method: 'POST', headers: auth, body: { candidates } });
      expect(invited.status).toBe(200);
      await new Promise((resolveWait) => setTimeout(resolveWait, 1_100));
      for (const url of [apiUrl, internalUrl]) {
        const behind = await scrape(url, token);
        for (const { labels, value } of behind.all('hiring_projection_lag_events')) expect([labels.projection, value > 0]).toEqual([labels.projection, true]);
        expect(behind.sum('hiring_projection_lag_seconds', { projection: 'invitations' })).toBeGreaterThanOrEqual(1);
        expect(behind.sum('hiring_dispatcher_lag_events')).toBeGreaterThan(0);
        expect(behind.sum('hiring_dispatcher_lag_seconds')).toBeGreaterThanOrEqual(1);
      }
      // Seconds behind, well within the readiness bound: still ready.
      expect(await probe(`${apiUrl}/health/ready`)).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      worker.child.kill('SIGCONT');
    }
    const after = await waitUntil('caught up after the worker resumed', () => scrape(apiUrl, token), caughtUp);
    expect(after.sum('hiring_projection_lag_seconds')).toBe(0);
    expect(after.sum('hiring_dispatcher_lag_seconds')).toBe(0);
  });
});

describe('readiness follows the database', () => {
  let database: { url: string; drop: () => Promise<void> };
  let api: AppProcess;
  let apiUrl = '';
  let dataDir: string;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  const queuePrefix = `obs-db-${Date.now().toString(36)}`;

  beforeAll(async () => {
    database = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'hiring-obs-db-'));
    await admin.connect();
    const port = await freeLoopbackPort();
    apiUrl = `http://127.0.0.1:${port}`;
    api = await startApp('api', {
      EVENT_STORE_URL: database.url, SERVICE_SECRET: 'observability-db-secret', INTERNAL_TOKEN: 'obs-db-token', DATA_DIR: dataDir, QUEUE_PREFIX: queuePrefix,
      PORT: String(port), HOST: '127.0.0.1',
    }, async () => (await fetch(`${apiUrl}/health/ready`)).status === 200);
  }, 120_000);

  afterAll(async () => {
    const name = new URL(database.url).pathname.slice(1);
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.end();
    await api?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    await deleteQueueKeys(queuePrefix);
  }, 60_000);

  it('answers 503 within about a second while the database refuses connections, and 200 again once it accepts them', async () => {
    const name = new URL(database.url).pathname.slice(1);
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    await waitUntil('not ready', () => probe(`${apiUrl}/health/ready`), (answer) => answer.status === 503, 10_000);
    const started = Date.now();
    expect(await probe(`${apiUrl}/health/ready`)).toEqual({ status: 503, body: { status: 'unavailable' } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await probe(`${apiUrl}/health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
    const metrics = await scrape(apiUrl, 'obs-db-token');
    expect(metrics.sum('hiring_ready')).toBe(0);
    expect(metrics.sum('hiring_ready_check', { check: 'database' })).toBe(0);
    // Unreadable, not caught up: absent, or NaN where the gauge has no labels.
    expect(metrics.all('hiring_projection_lag_seconds')).toEqual([]);
    expect(metrics.sum('hiring_dispatcher_lag_seconds')).toBeNaN();

    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await waitUntil('ready again', () => probe(`${apiUrl}/health/ready`), (answer) => answer.status === 200, 15_000);
    expect(api.child.exitCode).toBeNull();
  });
});
