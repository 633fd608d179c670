import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '#platform';
import { request } from './support/client.js';
import { type AppProcess, freshDatabase, startApp } from './support/processes.js';
import { deleteQueueKeys } from './support/service.js';

/**
 * The multi-process layout on the PostgreSQL server and Redis: two API processes, the internal
 * application and two workers, one of which is killed while deliveries are in flight.
 */
describe('separate processes on PostgreSQL', () => {
  const token = 'mp-internal-token';
  let database: { url: string; drop: () => Promise<void> };
  let dataDir: string;
  const processes: AppProcess[] = [];
  let apiUrls: string[] = [];
  let internalUrl = '';
  let receiver: Server;
  let receiverUrl = '';
  const received: { id: string; event: string }[] = [];
  const apiApplicationName = `mp_api_${process.pid}_`;
  const queuePrefix = `mp-${Date.now().toString(36)}`;

  const internal = (method: string, path: string, body?: unknown) =>
    request(`${internalUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body });

  beforeAll(async () => {
    database = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'hiring-mp-'));
    const receiverPort = await freeLoopbackPort();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      req.on('end', () => {
        const envelope = JSON.parse(body) as { id: string; event: string };
        received.push({ id: envelope.id, event: envelope.event });
        setTimeout(() => { res.statusCode = 200; res.end('ok'); }, 50);
      });
    }).listen(receiverPort, '127.0.0.1');
    receiverUrl = `http://127.0.0.1:${receiverPort}/hook`;

    const internalPort = await freeLoopbackPort();
    internalUrl = `http://127.0.0.1:${internalPort}`;
    const env = {
      EVENT_STORE_URL: database.url, SERVICE_SECRET: 'multi-process-service-secret', INTERNAL_TOKEN: token, DATA_DIR: dataDir,
      QUEUE_PREFIX: queuePrefix, WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_BACKOFF_MS: '50',
      INTERNAL_PORT: String(internalPort), APP_URL: `http://localhost:${internalPort}`, HOST: '127.0.0.1',
    };
    for (let i = 0; i < 2; i += 1) {
      processes.push(await startApp('worker', { ...env, LOG_LEVEL: 'info' }, async (output) => output.includes('worker running')));
    }
    processes.push(await startApp('simulator', env, async () => (await internal('GET', '/internal/health')).status === 200));
    for (let i = 0; i < 2; i += 1) {
      const port = await freeLoopbackPort();
      const url = `http://127.0.0.1:${port}`;
      // Named, so a test can find this process's LISTEN connections in pg_stat_activity.
      const named = { ...env, EVENT_STORE_URL: `${database.url}?application_name=${apiApplicationName}${i}`, PORT: String(port) };
      processes.push(await startApp('api', named, async () => (await request(`${url}/v1/me`)).status === 401));
      apiUrls.push(url);
    }
  }, 120_000);

  afterAll(async () => {
    for (const process of processes.reverse()) await process.stop();
    receiver?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    await deleteQueueKeys(queuePrefix);
  }, 60_000);

  it('answers every write once every process can read it, and delivers every webhook despite a killed worker', async () => {
    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Multi' })).body.data;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    const key = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).body.data;
    const auth = { authorization: `Bearer ${key.key}:${key.secret}` };
    const saved = await internal('PUT', `/internal/workspaces/${workspace.id}/webhook`, { url: receiverUrl, events: ['candidateInvited', 'candidateCreated', 'testCompleted'] });
    expect(saved.status).toBe(200);

    const [first, second] = apiUrls as [string, string];
    const created = await request(`${first}/v1/assessments`, { method: 'POST', headers: auth, body: { name: 'Spread', tests: ['numerical-reasoning'] } });
    expect(created.status).toBe(201);
    const assessmentId: string = created.body.data.id;
    // Read-your-writes across processes: the other API process sees the assessment at once.
    expect((await request(`${second}/v1/assessments/${assessmentId}`, { headers: auth })).status).toBe(200);

    const candidates = Array.from({ length: 12 }, (_, i) => ({ email: `person${i}@example.com`, firstName: `P${i}` }));
    const invited = await request(`${second}/v1/assessments/${assessmentId}/invitations`, { method: 'POST', headers: auth, body: { candidates } });
    expect(invited.status).toBe(200);
    expect(invited.body.meta.invited).toBe(12);
    // The outbox is read back through the internal application at once.
    const emails = await internal('GET', '/internal/emails?to=person3@example.com');
    expect(emails.body.data).toHaveLength(1);
    expect(emails.body.data[0].text).toContain(invited.body.data[3].invitationUrl);

    // Kill one worker while the invitations' deliveries are in flight.
    await processes[0]?.stop('SIGKILL');
    for (const entry of invited.body.data as { invitationUrl: string }[]) {
      const registered = await internal('POST', '/internal/registrations', { invitationUrl: entry.invitationUrl });
      expect(registered.status).toBe(201);
      const { candidateId } = registered.body.data;
      expect((await internal('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/tests/numerical-reasoning/complete`, {
        scorePercentage: 50, speedCompleted: 100, questionsAnswered: 2, questionsCorrect: 1, questionsIncorrect: 1, questionsTotal: 2,
      })).status).toBe(201);
    }
    const candidateList = await request(`${first}/v1/candidates?assessment=${assessmentId}&limit=100`, { headers: auth });
    expect(candidateList.body.data).toHaveLength(12);

    const expected = 12 * 3;
    const deadline = Date.now() + 30_000;
    let deliveries: { status: string; eventId: string }[] = [];
    while (Date.now() < deadline) {
      deliveries = (await internal('GET', `/internal/workspaces/${workspace.id}/webhook-deliveries`)).body.data;
      if (deliveries.length === expected && deliveries.every((row) => row.status === 'succeeded')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(deliveries).toHaveLength(expected);
    expect(deliveries.every((row) => row.status === 'succeeded')).toBe(true);
    const distinct = new Set(received.map((item) => item.id));
    expect(distinct.size).toBe(expected);
    expect(new Set(deliveries.map((row) => row.eventId))).toEqual(distinct);
  }, 90_000);

  it('refuses a regenerated key at once in every API process, though each had it cached', async () => {
    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Keys' })).body.data;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    let current = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).body.data;
    for (let round = 0; round < 5; round += 1) {
      const old = `Bearer ${current.key}:${current.secret}`;
      // Every API process has just answered with this key, so each holds it in its cache.
      for (const url of apiUrls) expect((await request(`${url}/v1/me`, { headers: { authorization: old } })).status).toBe(200);
      const regenerated = await internal('POST', `/internal/api-keys/${current.id}/regenerate`);
      expect(regenerated.status).toBe(200);
      current = regenerated.body.data;
      const fresh = `Bearer ${current.key}:${current.secret}`;
      const answers = await Promise.all(apiUrls.flatMap((url) => [
        request(`${url}/v1/me`, { headers: { authorization: old } }),
        request(`${url}/v1/results?limit=1`, { headers: { authorization: old } }),
      ]));
      expect(answers.map(({ status }) => status)).toEqual(apiUrls.flatMap(() => [401, 401]));
      for (const url of apiUrls) expect((await request(`${url}/v1/me`, { headers: { authorization: fresh } })).status).toBe(200);
    }
  }, 60_000);

  it('refuses a regenerated key in an API process that has not yet heard of the change', async () => {
    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Deaf' })).body.data;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    const issued = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).body.data;
    const old = `Bearer ${issued.key}:${issued.secret}`;
    for (const url of apiUrls) expect((await request(`${url}/v1/me`, { headers: { authorization: old } })).status).toBe(200);
    // Freeze the API processes' LISTEN backends: their connections stay open (the change feed
    // looks live) but no notification reaches them, as when one is late.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const listeners = (await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1 AND query LIKE 'LISTEN%'`, [`${apiApplicationName}%`],
    )).rows.map(({ pid }) => pid);
    expect(listeners.length).toBeGreaterThanOrEqual(apiUrls.length);
    try {
      for (const pid of listeners) process.kill(pid, 'SIGSTOP');
      const regenerated = await internal('POST', `/internal/api-keys/${issued.id}/regenerate`);
      expect(regenerated.status).toBe(200);
      const fresh = `Bearer ${regenerated.body.data.key}:${regenerated.body.data.secret}`;
      for (const url of apiUrls) {
        expect((await request(`${url}/v1/me`, { headers: { authorization: old } })).status).toBe(401);
        expect((await request(`${url}/v1/results?limit=1`, { headers: { authorization: old } })).status).toBe(401);
        expect((await request(`${url}/v1/me`, { headers: { authorization: fresh } })).status).toBe(200);
      }
    } finally {
      for (const pid of listeners) process.kill(pid, 'SIGCONT');
      await admin.end();
    }
  }, 60_000);

  it('pages the events feed through one process while two append at once, without skipping or repeating an event', async () => {
    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Feed' })).body.data;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    const key = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).body.data;
    const auth = { authorization: `Bearer ${key.key}:${key.secret}` };
    const [first, second] = apiUrls as [string, string];
    const created = await request(`${first}/v1/assessments`, { method: 'POST', headers: auth, body: { name: 'Feed', tests: ['numerical-reasoning'] } });
    const assessmentId: string = created.body.data.id;
    // Two writers, one per API process, their appends interleaving in the log; within 120 requests a minute.
    const perWriter = 20;
    const writers = [first, second].map(async (url, writer) => {
      for (let i = 0; i < perWriter; i += 1) {
        const answer = await request(`${url}/v1/assessments/${assessmentId}/invitations`, { method: 'POST', headers: auth, body: { candidates: [{ email: `feed-${writer}-${i}@example.com` }] } });
        expect(answer.status).toBe(200);
      }
    });
    let written = false;
    void Promise.all(writers).then(() => { written = true; });
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const finished = written;
      const page = await request(`${first}/v1/events?limit=5${cursor === '' ? '' : `&cursor=${cursor}`}`, { headers: auth });
      expect(page.status).toBe(200);
      seen.push(...(page.body.data as { id: string }[]).map((envelope) => envelope.id));
      cursor = page.body.meta.nextCursor;
      if (!page.body.meta.hasMore && finished) break;
      if (!page.body.meta.hasMore) await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await Promise.all(writers);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(2 * perWriter);
    // The same feed, read at once afterwards through the other process.
    const whole = await request(`${second}/v1/events?limit=100`, { headers: auth });
    expect((whole.body.data as { id: string }[]).map((envelope) => envelope.id)).toStrictEqual(seen);
  }, 60_000);

  // Last: it stops the remaining worker.
  it('records an invitation\'s e-mails with it in an API process, with no worker running, when no webhook is due', async () => {
    const workspace = (await internal('POST', '/internal/workspaces', { name: 'No worker' })).body.data;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    const key = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).body.data;
    const auth = { authorization: `Bearer ${key.key}:${key.secret}` };
    for (const worker of processes.slice(0, 2)) await worker.stop();
    const [first] = apiUrls as [string];
    const created = await request(`${first}/v1/assessments`, { method: 'POST', headers: auth, body: { name: 'Alone', tests: ['numerical-reasoning'] } });
    expect(created.status).toBe(201);
    const candidates = [{ email: 'alone-a@example.com', firstName: 'A' }, { email: 'alone-b@example.com', firstName: 'B' }];
    const invited = await request(`${first}/v1/assessments/${created.body.data.id}/invitations`, { method: 'POST', headers: auth, body: { candidates } });
    expect(invited.status).toBe(200);
    expect(invited.body.meta.invited).toBe(2);
    // No dispatcher runs anywhere: the e-mails are in the outbox because the invitation's own
    // transaction recorded them, and the answer did not wait for a dispatcher to catch up.
    for (const [index, { email }] of candidates.entries()) {
      const emails = await internal('GET', `/internal/emails?to=${email}`);
      expect(emails.body.data).toHaveLength(1);
      expect(emails.body.data[0].text).toContain(invited.body.data[index].invitationUrl);
    }
  }, 60_000);
});
