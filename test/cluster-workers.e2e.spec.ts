import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import pg from 'pg';
import { freeLoopbackPort } from '#platform';
import { request } from './support/client.js';
import { eventually } from './support/messaging-receivers.js';
import { type AppProcess, freshDatabase, startApp } from './support/processes.js';
import { deleteQueueKeys } from './support/service.js';

jest.setTimeout(240_000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Workers as a cluster on PostgreSQL: three workers, one of which holds the followers' lease (the
 * projections, the dispatcher, the sealer); killed with -9 under load, another takes the loops
 * within 10 s and nothing is lost; stopped cleanly, another takes them at once; with every worker
 * stopped, the API still answers at once.
 */
describe('workers as a cluster (e2e, PostgreSQL)', () => {
  const token = 'cluster-internal-token';
  let database: { url: string; drop: () => Promise<void> };
  let admin: pg.Client;
  let dataDir: string;
  const workers: AppProcess[] = [];
  const others: AppProcess[] = [];
  let apiUrl = '';
  let internalUrl = '';
  let receiver: Server;
  let receiverUrl = '';
  /** Envelope ids received per invited address (a repeat of one id is at-least-once; two ids would be a double). */
  const received = new Map<string, string[]>();
  /** Requests per envelope id, whatever the event: each must be an attempt in the delivery log. */
  const requestsPerId = new Map<string, number>();
  const queuePrefix = `cluster-${Date.now().toString(36)}`;
  let env: Record<string, string> = {};
  let workspaceId = '';
  let assessmentId = '';

  const internal = (method: string, path: string, body?: unknown) =>
    request(`${internalUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body });
  const holding = async (): Promise<{ holder: string; fence: string; live: boolean } | null> => {
    const result = await admin.query(`SELECT holder, fence::text AS fence, expires_at >= now() AS live FROM service_leases WHERE name = 'followers'`);
    return (result.rows[0] as { holder: string; fence: string; live: boolean } | undefined) ?? null;
  };
  const pidOf = (holder: string): number => Number(holder.split(':')[1]);
  const startWorker = async () => {
    const worker = await startApp('worker', env, async (output) => output.includes('worker running'));
    workers.push(worker);
    return worker;
  };
  const freshKey = async (): Promise<Record<string, string>> => {
    const key = (await internal('POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode: 'live' })).body.data;
    return { authorization: `Bearer ${key.key}:${key.secret}` };
  };
  const invite = async (auth: Record<string, string>, email: string) => {
    const startedAt = Date.now();
    const answer = await request(`${apiUrl}/v1/assessments/${assessmentId}/invitations`, { method: 'POST', headers: auth, body: { candidates: [{ email }] } });
    return { email, status: answer.status, tookMs: Date.now() - startedAt };
  };
  const expectDelivered = async (emails: string[]) => {
    await eventually(async () => emails.filter((email) => !received.has(email)).length, (missing: number) => missing === 0, 90_000, 'a webhook for every invitation');
    for (const email of emails) expect(new Set(received.get(email)).size).toBe(1);
    await eventually(async () => {
      let missing = 0;
      for (const email of emails) if ((await internal('GET', `/internal/emails?to=${encodeURIComponent(email)}`)).body.data.length !== 1) missing += 1;
      return missing;
    }, (missing: number) => missing === 0, 60_000, 'an e-mail for every invitation');
  };

  beforeAll(async () => {
    database = await freshDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    dataDir = mkdtempSync(join(tmpdir(), 'hiring-cluster-'));
    const receiverPort = await freeLoopbackPort();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      req.on('end', () => {
        const envelope = JSON.parse(body) as { id: string; event: string; data: { invitation?: { email?: string } } };
        requestsPerId.set(envelope.id, (requestsPerId.get(envelope.id) ?? 0) + 1);
        const email = envelope.data.invitation?.email;
        if (envelope.event === 'candidateInvited' && email) received.set(email, [...(received.get(email) ?? []), envelope.id]);
        // Slow enough that a kill -9 finds deliveries in flight.
        setTimeout(() => { res.statusCode = 200; res.end('ok'); }, 30);
      });
    }).listen(receiverPort, '127.0.0.1');
    receiverUrl = `http://127.0.0.1:${receiverPort}/hook`;
    const internalPort = await freeLoopbackPort();
    internalUrl = `http://127.0.0.1:${internalPort}`;
    env = {
      EVENT_STORE_URL: database.url, SERVICE_SECRET: 'cluster-service-secret', INTERNAL_TOKEN: token, DATA_DIR: dataDir,
      QUEUE_PREFIX: queuePrefix, WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_BACKOFF_MS: '50', LOG_LEVEL: 'info',
      INTERNAL_PORT: String(internalPort), APP_URL: `http://localhost:${internalPort}`, HOST: '127.0.0.1',
    };
    for (let i = 0; i < 3; i += 1) await startWorker();
    others.push(await startApp('simulator', env, async () => (await internal('GET', '/internal/health')).status === 200));
    const port = await freeLoopbackPort();
    apiUrl = `http://127.0.0.1:${port}`;
    others.push(await startApp('api', { ...env, PORT: String(port) }, async () => (await request(`${apiUrl}/v1/me`)).status === 401));

    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Cluster' })).body.data;
    workspaceId = workspace.id;
    await internal('POST', `/internal/workspaces/${workspaceId}/verify`);
    expect((await internal('PUT', `/internal/workspaces/${workspaceId}/webhook`, { url: receiverUrl, events: ['candidateInvited'] })).status).toBe(200);
    const created = await request(`${apiUrl}/v1/assessments`, { method: 'POST', headers: await freshKey(), body: { name: 'Cluster', tests: ['numerical-reasoning'] } });
    expect(created.status).toBe(201);
    assessmentId = created.body.data.id;
  }, 180_000);

  afterAll(async () => {
    for (const app of [...others, ...workers].reverse()) await app.stop();
    receiver?.close();
    await admin?.end();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await deleteQueueKeys(queuePrefix);
  }, 60_000);

  it('one worker holds the loops; killed with -9 under load another takes them within 10 s, and every invitation gets its e-mail and webhook, repeats only with the same id', async () => {
    const first = await eventually(holding, (lease) => lease !== null && lease.live, 10_000, 'a worker holding the followers lease');
    expect(workers.map((worker) => worker.child.pid)).toContain(pidOf(first!.holder));
    const holder = workers.find((worker) => worker.child.pid === pidOf(first!.holder));
    // One process at a time runs the loops: the holder took the lease, and any other worker that took it
    // before (a renewal starved past its expiry on a loaded machine) has given it up since.
    expect(holder!.output()).toContain('took the lease');
    for (const worker of workers.filter((other) => other !== holder)) {
      const lines = worker.output().split('\n');
      expect({ took: lines.filter((line) => line.includes('took the lease')).length, lost: lines.filter((line) => line.includes('lost the lease')).length })
        .toEqual({ took: expect.any(Number), lost: lines.filter((line) => line.includes('took the lease')).length });
    }

    const keys = await Promise.all([freshKey(), freshKey(), freshKey()]);
    const emails: string[] = [];
    let running = true;
    const loops = keys.map(async (auth, client) => {
      for (let i = 0; running; i += 1) {
        const email = `kill.${client}.${i}@example.com`;
        const answer = await invite(auth, email);
        if (answer.status === 200) emails.push(email);
        await pause(400);
      }
    });
    await pause(3000);
    const killedAt = Date.now();
    holder!.child.kill('SIGKILL');
    const next = await eventually(holding, (lease) => lease !== null && lease.live && lease.holder !== first!.holder, 15_000, 'another worker taking the lease');
    const tookOverMs = Date.now() - killedAt;
    expect(tookOverMs).toBeLessThan(10_000);
    expect(BigInt(next!.fence)).toBeGreaterThan(BigInt(first!.fence));
    // Load on both sides of the kill: at least 30 invitations in all, and 3 s more after the takeover.
    await pause(3000);
    await eventually(async () => emails.length, (count) => count >= 30, 60_000, '30 invitations acknowledged');
    running = false;
    await Promise.all(loops);
    await expectDelivered(emails);
    // Each request the receiver got is an attempt in the delivery log, those cut short by the kill
    // included (logged as interrupted once another worker takes their job up, within ~20 s).
    const deliveries = await eventually(async () => (await internal('GET', `/internal/workspaces/${workspaceId}/webhook-deliveries`)).body.data as { eventId: string; status: string; attemptLog: unknown[] }[],
      (rows) => rows.length >= emails.length && rows.every((row) => row.status === 'succeeded'), 90_000, 'every delivery succeeded');
    const logged = new Map(deliveries.map((row) => [row.eventId, row.attemptLog.length]));
    for (const [id, requests] of requestsPerId) expect({ id, requests, logged: Math.max(requests, logged.get(id) ?? 0) }).toEqual({ id, requests, logged: logged.get(id) });
    // Read models followed by the new holder: the assessment counts every invitation.
    const assessment = await request(`${apiUrl}/v1/assessments/${assessmentId}`, { headers: keys[0]! });
    expect(assessment.status).toBe(200);
  });

  it('a holder stopped with SIGTERM releases the lease: another takes the loops at once', async () => {
    const current = await holding();
    expect(workers.filter((worker) => worker.child.exitCode === null).map((worker) => worker.child.pid)).toContain(pidOf(current!.holder));
    const holder = workers.find((worker) => worker.child.exitCode === null && worker.child.pid === pidOf(current!.holder));
    const stoppedAt = Date.now();
    await holder!.stop('SIGTERM');
    expect(holder!.output()).toContain('released the lease');
    const next = await eventually(holding, (lease) => lease !== null && lease.live && lease.holder !== current!.holder, 10_000, 'another worker taking the released lease');
    expect(Date.now() - stoppedAt).toBeLessThan(4_000);
    expect(workers.some((worker) => worker.child.exitCode === null && worker.child.pid === pidOf(next!.holder))).toBe(true);
  });

  it('a worker whose settings differ from the running ones refuses to start, with one line naming them (never a secret)', async () => {
    expect(workers.some((worker) => worker.child.exitCode === null)).toBe(true);
    const refusal = await startApp('worker', { ...env, WEBHOOK_ALLOW_INSECURE: 'false', APP_URL: 'https://elsewhere.example.com' }, async () => false)
      .then(() => 'started', (error: Error) => error.message);
    expect(refusal).toContain('exited early');
    expect(refusal).toContain('refusing to start: APP_URL, WEBHOOK_ALLOW_INSECURE differ from the workers running now');
    expect(refusal.split('\n').filter((line) => /^\s+at /.test(line))).toEqual([]);
    // Another service secret is refused before that: it does not open the person keys the database holds.
    const foreign = await startApp('worker', { ...env, SERVICE_SECRET: 'another-service-secret' }, async () => false)
      .then(() => 'started', (error: Error) => error.message);
    expect(foreign).toContain('exited early');
    expect(foreign).toContain('refusing to start: the database was written with another service secret');
    expect(foreign).not.toContain('another-service-secret');
    expect(foreign.split('\n').filter((line) => /^\s+at /.test(line))).toEqual([]);
    // The same settings are welcome.
    await startWorker();
  });

  it('with every worker stopped, invitations are answered at once; a worker started later delivers what they owe', async () => {
    for (const worker of workers) await worker.stop('SIGTERM');
    await eventually(holding, (lease) => lease === null || !lease.live, 5_000, 'no live holder');
    await pause(1100); // the API's view of the lease is at most a second old
    const auth = await freshKey();
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await invite(auth, `no.worker.${i}@example.com`));
    for (const answer of answers) expect({ status: answer.status, fast: answer.tookMs < 2_000 }).toEqual({ status: 200, fast: true });
    expect(others.find((app) => app.name === 'api')!.output()).not.toContain('did not catch up in time');
    await startWorker();
    await expectDelivered(answers.map((answer) => answer.email));
  });
});
