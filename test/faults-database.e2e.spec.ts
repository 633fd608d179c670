import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import pg from 'pg';
import { freeLoopbackPort } from '#platform';
import { request } from './support/client.js';
import { eventually } from './support/messaging-receivers.js';
import { type ThrowawayPostgres, throwawayPostgres } from '#platform/testing/throwaway-postgres.js';
import { type AppProcess, startApp } from './support/processes.js';
import { deleteQueueKeys } from './support/service.js';

jest.setTimeout(240_000);

interface Answer { email: string; status: number; code: string | null; retryAfter: string | null; startedAt: number; tookMs: number }

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const linesWith = (output: string, text: string): string[] => output.split('\n').filter((line) => line.includes(text));

/**
 * Database outages, on a PostgreSQL server of the suite's own (initdb in a temporary folder, a spare
 * port): stopped and started under load, every connection terminated under load, and a process
 * started while it is down. No process may exit, requests meanwhile answer within a second with
 * 500 server_error and Retry-After, each process says once that the database is gone and once that
 * it is back, everything recovers by itself, and nothing acknowledged is lost (each acknowledged
 * invitation is readable, has its e-mail and its webhook).
 */
describe('database outages (e2e, a PostgreSQL server of its own)', () => {
  const token = 'outage-internal-token';
  let server: ThrowawayPostgres;
  let dataDir: string;
  const processes: AppProcess[] = [];
  let apiUrl = '';
  let internalUrl = '';
  let receiver: Server;
  let receiverUrl = '';
  const received = new Map<string, number>();
  const queuePrefix = `outage-${Date.now().toString(36)}`;
  let env: Record<string, string> = {};
  let auth: Record<string, string> = {};
  let assessmentId = '';

  const internal = (method: string, path: string, body?: unknown) =>
    request(`${internalUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body });
  const byName = (name: string): AppProcess => processes.find((app) => app.name === name) as AppProcess;

  let workspaceId = '';
  /** An API key of its own per client: 120 requests a minute each, the contract's rate limit, are never reached. */
  const freshKey = async (): Promise<Record<string, string>> => {
    const key = (await internal('POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode: 'live' })).body.data;
    return { authorization: `Bearer ${key.key}:${key.secret}` };
  };

  /** Invitations from `clients` loops (two a second each) until `stop()`: every answer with its timing. */
  const load = async (clients: number, label: string) => {
    const answers: Answer[] = [];
    let running = true;
    let counter = 0;
    const keys = await Promise.all(Array.from({ length: clients }, () => freshKey()));
    const loop = async (auth: Record<string, string>) => {
      while (running) {
        counter += 1;
        const email = `${label}.${counter}@example.com`;
        const startedAt = Date.now();
        try {
          const response = await fetch(`${apiUrl}/v1/assessments/${assessmentId}/invitations`, {
            method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ candidates: [{ email }] }), signal: AbortSignal.timeout(10_000),
          });
          const text = await response.text();
          let code: string | null = null;
          try { code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null; } catch { code = 'not json'; }
          answers.push({ email, status: response.status, code, retryAfter: response.headers.get('retry-after'), startedAt, tookMs: Date.now() - startedAt });
        } catch (error) {
          answers.push({ email, status: 0, code: (error as Error).name, retryAfter: null, startedAt, tookMs: Date.now() - startedAt });
        }
        if (!running) break;
        await pause(500);
      }
    };
    const loops = keys.map((key) => loop(key));
    return { answers, stop: async () => { running = false; await Promise.all(loops); } };
  };

  /** Every acknowledged invitation is readable, has its e-mail in the outbox and its webhook delivered. */
  const expectNothingAcknowledgedLost = async (answers: Answer[]) => {
    const acknowledged = answers.filter((answer) => answer.status === 200).map((answer) => answer.email);
    expect(acknowledged.length).toBeGreaterThan(10);
    await eventually(async () => {
      let missing = 0;
      for (const email of acknowledged) {
        const emails = await internal('GET', `/internal/emails?to=${encodeURIComponent(email)}`);
        if (emails.status !== 200 || emails.body.data.length !== 1) missing += 1;
      }
      return missing;
    }, (missing: number) => missing === 0, 60_000, 'an e-mail for every acknowledged invitation');
    // Invited in the log: inviting them again finds every one already invited.
    for (let from = 0; from < acknowledged.length; from += 100) {
      const again = await request(`${apiUrl}/v1/assessments/${assessmentId}/invitations`, {
        method: 'POST', headers: auth, body: { candidates: acknowledged.slice(from, from + 100).map((email) => ({ email })) },
      });
      expect(again.status).toBe(200);
      expect((again.body.data as { status: string }[]).filter((entry) => entry.status !== 'already_invited')).toEqual([]);
    }
    await eventually(async () => acknowledged.filter((email) => !received.has(email)).length, (missing: number) => missing === 0, 60_000, 'a webhook for every acknowledged invitation');
  };

  const expectAliveAndQuiet = (downLinesAtMost: number) => {
    for (const app of processes) {
      expect({ app: app.name, exitCode: app.child.exitCode }).toEqual({ app: app.name, exitCode: null });
      const output = app.output();
      expect(output).not.toContain('Unhandled');
      // One line per problem, never a stack trace.
      expect(output.split('\n').filter((line) => /^\s+at /.test(line))).toEqual([]);
      expect(linesWith(output, 'the database is unreachable').length).toBeLessThanOrEqual(downLinesAtMost);
    }
  };

  beforeAll(async () => {
    server = await throwawayPostgres();
    dataDir = mkdtempSync(join(tmpdir(), 'hiring-outage-'));
    const receiverPort = await freeLoopbackPort();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      req.on('end', () => {
        const envelope = JSON.parse(body) as { event: string; data: { invitation?: { email?: string } } };
        const invited = envelope.data.invitation?.email;
        if (envelope.event === 'candidateInvited' && invited) received.set(invited, (received.get(invited) ?? 0) + 1);
        res.statusCode = 200;
        res.end('ok');
      });
    }).listen(receiverPort, '127.0.0.1');
    receiverUrl = `http://127.0.0.1:${receiverPort}/hook`;
    const internalPort = await freeLoopbackPort();
    internalUrl = `http://127.0.0.1:${internalPort}`;
    env = {
      EVENT_STORE_URL: server.url, SERVICE_SECRET: 'outage-service-secret', INTERNAL_TOKEN: token, DATA_DIR: dataDir,
      QUEUE_PREFIX: queuePrefix, WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_BACKOFF_MS: '50', LOG_LEVEL: 'info',
      INTERNAL_PORT: String(internalPort), APP_URL: `http://localhost:${internalPort}`, HOST: '127.0.0.1',
    };
    processes.push(await startApp('worker', env, async (output) => output.includes('worker running')));
    processes.push(await startApp('simulator', env, async () => (await internal('GET', '/internal/health')).status === 200));
    const port = await freeLoopbackPort();
    apiUrl = `http://127.0.0.1:${port}`;
    processes.push(await startApp('api', { ...env, PORT: String(port) }, async () => (await request(`${apiUrl}/v1/me`)).status === 401));

    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Outages' })).body.data;
    workspaceId = workspace.id;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    const key = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).body.data;
    auth = { authorization: `Bearer ${key.key}:${key.secret}` };
    expect((await internal('PUT', `/internal/workspaces/${workspace.id}/webhook`, { url: receiverUrl, events: ['candidateInvited'] })).status).toBe(200);
    const created = await request(`${apiUrl}/v1/assessments`, { method: 'POST', headers: auth, body: { name: 'Outages', tests: ['numerical-reasoning'] } });
    expect(created.status).toBe(201);
    assessmentId = created.body.data.id;
  }, 180_000);

  afterAll(async () => {
    if (process.env.DEBUG_OUTAGE) for (const app of processes) (await import('node:fs')).writeFileSync(`/tmp/outage-${app.name}.log`, app.output());
    for (const app of processes.reverse()) await app.stop();
    receiver?.close();
    server?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await deleteQueueKeys(queuePrefix);
  }, 60_000);

  it('stopped for 8 s under load: no process exits, answers within a second with 500 and Retry-After meanwhile, one line down and one back, recovery by itself, nothing acknowledged lost', async () => {
    const running = await load(4, 'stop');
    await pause(2000);
    const stoppedAt = Date.now();
    server.stop();
    await pause(3000);
    // Orchestrators see it: not ready during the outage (alive all along), ready again after.
    const ready = await request(`${apiUrl}/health/ready`);
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 503, body: { status: 'unavailable' } });
    expect((await request(`${apiUrl}/health/live`)).status).toBe(200);
    await pause(5000);
    server.start();
    const startedAt = Date.now();
    // Recovery by itself, within seconds.
    await eventually(async () => running.answers.filter((answer) => answer.startedAt > startedAt && answer.status === 200).length, (n: number) => n >= 4, 20_000, 'invitations succeeding again after the database came back');
    await running.stop();
    await eventually(async () => (await request(`${apiUrl}/health/ready`)).status, (status: number) => status === 200, 10_000, 'the API ready again');
    const recoveredAt = Math.min(...running.answers.filter((answer) => answer.startedAt > startedAt && answer.status === 200).map((answer) => answer.startedAt));
    expect(recoveredAt - startedAt).toBeLessThan(10_000);

    // Settled into the outage (the first requests may meet it mid-flight): fast, documented answers.
    const during = running.answers.filter((answer) => answer.startedAt > stoppedAt + 1500 && answer.startedAt + answer.tookMs < startedAt);
    expect(during.length).toBeGreaterThan(15);
    for (const answer of during) {
      expect({ status: answer.status, code: answer.code, retryAfter: answer.retryAfter, fast: answer.tookMs < 1000 })
        .toEqual({ status: 500, code: 'server_error', retryAfter: '5', fast: true });
    }
    // Whatever met the stop itself still got an HTTP answer in the documented shape.
    for (const answer of running.answers) expect([200, 500]).toContain(answer.status);

    expectAliveAndQuiet(1);
    for (const name of ['api', 'worker']) {
      const output = byName(name).output();
      expect({ name, down: linesWith(output, 'the database is unreachable').length, back: linesWith(output, 'the database is reachable again').length }).toEqual({ name, down: 1, back: 1 });
    }
    await expectNothingAcknowledgedLost(running.answers);
  });

  it('every connection terminated under load (a failover): nothing exits, the next requests succeed, nothing acknowledged lost', async () => {
    const before = new Map(processes.map((app) => [app.name, linesWith(app.output(), 'the database is unreachable').length]));
    const running = await load(4, 'terminate');
    await pause(1500);
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    for (let round = 0; round < 3; round += 1) {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`);
      await pause(500);
    }
    await admin.end();
    const terminatedAt = Date.now();
    await eventually(async () => running.answers.filter((answer) => answer.startedAt > terminatedAt && answer.status === 200).length, (n: number) => n >= 4, 15_000, 'invitations succeeding after the terminations')
      .catch((error: Error) => { throw new Error(`${error.message}\n${JSON.stringify(running.answers.slice(-12).map((answer) => ({ ...answer, startedAt: answer.startedAt - terminatedAt })))}`); });
    await running.stop();
    for (const answer of running.answers) expect([200, 500]).toContain(answer.status);
    // Not an outage: the server answered every probe.
    for (const app of processes) expect(linesWith(app.output(), 'the database is unreachable').length).toBe(before.get(app.name));
    expectAliveAndQuiet(1);
    await expectNothingAcknowledgedLost(running.answers);
  });

  it('a process started while the database is down waits for it, says so once, and serves once it is back', async () => {
    server.stop();
    const port = await freeLoopbackPort();
    const url = `http://127.0.0.1:${port}`;
    let late: AppProcess | null = null;
    try {
      late = await startApp('api', { ...env, PORT: String(port) }, async (output) => output.includes('waiting for it before starting'));
      await pause(3000);
      expect(late.child.exitCode).toBeNull();
      expect(linesWith(late.output(), 'waiting for it before starting')).toHaveLength(1);
      server.start();
      await eventually(async () => (await request(`${url}/v1/me`, { headers: auth }).catch(() => ({ status: 0 }))).status, (status: number) => status === 200, 20_000, 'the late process serving');
      expect(late.output().split('\n').filter((line) => /^\s+at /.test(line))).toEqual([]);
    } finally {
      if (late && late.child.exitCode === null) await late.stop();
      if (late === null) server.start();
    }
  });
});
