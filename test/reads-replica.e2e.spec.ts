import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { freeLoopbackPort } from '#platform';
import { type ThrowawayPostgres, type ThrowawayStandby, throwawayPostgres, throwawayStandby } from '#platform/testing/throwaway-postgres.js';
import { request } from './support/client.js';
import { probe, scrape } from './support/metrics.js';
import { type AppProcess, startApp } from './support/processes.js';
import { deleteQueueKeys } from './support/service.js';

jest.setTimeout(120_000);

/**
 * READ_REPLICA_URL in the separate-process deployment: a PostgreSQL primary of the test's own and a
 * hot standby streaming from it (asynchronously), a worker, the internal application and two API
 * processes reading from the standby. Each read follows a write acknowledged by the OTHER API process
 * and must show it, whether the standby keeps up, lags (replay paused) or is gone; the metrics say
 * who served the reads. Writes' own reads (the invitation's 404, API keys) stay on the primary.
 */
describe('public reads on a standby (READ_REPLICA_URL)', () => {
  const token = 'replica-internal-token';
  const queuePrefix = `replica-${Date.now().toString(36)}`;
  let primary: ThrowawayPostgres;
  let standby: ThrowawayStandby;
  let dataDir = '';
  let internalUrl = '';
  const apiUrls: string[] = [];
  const apps: AppProcess[] = [];
  let workspaceId = '';
  let auth: Record<string, string> = {};

  const internal = (method: string, path: string, body?: unknown) =>
    request(`${internalUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body });

  beforeAll(async () => {
    primary = await throwawayPostgres();
    standby = await throwawayStandby(primary);
    dataDir = mkdtempSync(join(tmpdir(), 'hiring-replica-'));
    const internalPort = await freeLoopbackPort();
    internalUrl = `http://127.0.0.1:${internalPort}`;
    const env: Record<string, string> = {
      EVENT_STORE_URL: primary.url,
      READ_REPLICA_URL: `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=prefer-standby`,
      SERVICE_SECRET: 'replica-service-secret', INTERNAL_TOKEN: token, DATA_DIR: dataDir, QUEUE_PREFIX: queuePrefix,
      INTERNAL_PORT: String(internalPort), APP_URL: `http://localhost:${internalPort}`, HOST: '127.0.0.1', LOG_LEVEL: 'info',
    };
    apps.push(await startApp('worker', env, async (output) => output.includes('worker running')));
    const ports = [await freeLoopbackPort(), await freeLoopbackPort()];
    apiUrls.push(...ports.map((port) => `http://127.0.0.1:${port}`));
    apps.push(...await Promise.all([
      startApp('simulator', env, async () => (await internal('GET', '/internal/health')).status === 200),
      ...ports.map((port) => startApp('api', { ...env, PORT: String(port) }, async () => (await request(`http://127.0.0.1:${port}/v1/me`)).status === 401)),
    ]));
    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Replica reads' })).body.data;
    workspaceId = workspace.id;
    await internal('POST', `/internal/workspaces/${workspaceId}/verify`);
  }, 120_000);

  // A key per test: the contract's 120 requests a minute per key are never reached.
  beforeEach(async () => {
    const key = (await internal('POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode: 'live' })).body.data;
    auth = { authorization: `Bearer ${key.key}:${key.secret}` };
  });

  afterAll(async () => {
    for (const app of [...apps].reverse()) await app.stop();
    standby?.destroy();
    primary?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await deleteQueueKeys(queuePrefix);
  }, 60_000);

  /** Served-by counts of these API processes (all by default), by reason. */
  const servedBy = async (urls = apiUrls): Promise<Record<string, number>> => {
    const counts: Record<string, number> = {};
    for (const url of urls) {
      const metrics = await scrape(url, token);
      for (const sample of metrics.all('hiring_replica_reads_total')) {
        const label = `${sample.labels.served_by}:${sample.labels.reason}`;
        counts[label] = (counts[label] ?? 0) + sample.value;
      }
    }
    return counts;
  };
  const delta = (after: Record<string, number>, before: Record<string, number>): Record<string, number> =>
    Object.fromEntries(Object.entries(after).map(([label, count]) => [label, count - (before[label] ?? 0)]).filter(([, count]) => count !== 0));

  /** Writes on one API process, reads at once on the other: the assessment, then its invitations list. */
  const writeThenRead = async (round: number): Promise<void> => {
    const [writer, reader] = round % 2 === 0 ? [apiUrls[0], apiUrls[1]] : [apiUrls[1], apiUrls[0]];
    const created = await request(`${writer}/v1/assessments`, { method: 'POST', headers: auth, body: { name: `Round ${round}`, tests: ['numerical-reasoning'] } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const read = await request(`${reader}/v1/assessments/${id}`, { headers: auth });
    expect({ round, status: read.status, id: read.body?.data?.id }).toEqual({ round, status: 200, id });
    const email = `round.${round}@example.com`;
    // The invitation's own checks (the assessment's 404) read the primary: the standby may not have it yet.
    const invited = await request(`${reader}/v1/assessments/${id}/invitations`, { method: 'POST', headers: auth, body: { candidates: [{ email }] } });
    expect({ round, status: invited.status }).toEqual({ round, status: 200 });
    const list = await request(`${writer}/v1/assessments/${id}/invitations`, { headers: auth });
    expect({ round, emails: (list.body.data as { email: string }[]).map((row) => row.email) }).toEqual({ round, emails: [email] });
  };

  it('serves the reads from the standby when it keeps up, and every read after a write on the other process shows it', async () => {
    const before = await servedBy();
    for (let round = 0; round < 20; round += 1) await writeThenRead(round);
    const served = delta(await servedBy(), before);
    // 40 GETs, each one read or two (an assessment, then a list): all on the standby.
    expect(Object.keys(served).filter((label) => label.startsWith('primary:'))).toEqual([]);
    expect((served['replica:caught_up'] ?? 0) + (served['replica:waited'] ?? 0)).toBeGreaterThanOrEqual(40);
    for (const url of apiUrls) {
      const metrics = await scrape(url, token);
      expect(metrics.all('hiring_db_replica', { host: `127.0.0.1:${standby.port}` }).map((sample) => sample.value)).toEqual([1]);
      expect(metrics.sum('hiring_db_replica')).toBe(1);
    }
  });

  it('a standby that stops replaying is waited for, then the primary serves: no read is stale, and a key made meanwhile works at once', async () => {
    await standby.pauseReplay();
    try {
      const before = await servedBy();
      // The key is read on the primary (API keys are not read models of a GET).
      const key = (await internal('POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode: 'live' })).body.data;
      expect((await request(`${apiUrls[1]}/v1/me`, { headers: { authorization: `Bearer ${key.key}:${key.secret}` } })).status).toBe(200);
      for (let round = 100; round < 104; round += 1) await writeThenRead(round);
      const served = delta(await servedBy(), before);
      expect(served['primary:behind']).toBeGreaterThanOrEqual(8);
      expect(Object.keys(served).filter((label) => label.startsWith('replica:'))).toEqual([]);
    } finally {
      await standby.resumeReplay();
    }
  });

  it('a standby that is gone: reads go to the primary, /health/ready stays 200, and they come back to the standby when it returns', async () => {
    standby.stop();
    try {
      const before = await servedBy();
      for (let round = 200; round < 204; round += 1) await writeThenRead(round);
      const served = delta(await servedBy(), before);
      expect(Object.keys(served).filter((label) => label.startsWith('replica:'))).toEqual([]);
      expect((served['primary:error'] ?? 0) + (served['primary:no_standby'] ?? 0)).toBeGreaterThanOrEqual(8);
      for (const url of apiUrls) {
        expect(await probe(`${url}/health/ready`)).toEqual({ status: 200, body: { status: 'ok' } });
        expect((await scrape(url, token)).sum('hiring_db_replica')).toBe(0);
      }
    } finally {
      standby.start();
    }
    // Each process finds the standby again on its own: every one of them must come back to it.
    const deadline = Date.now() + 15_000;
    let round = 300;
    const backOnStandby = new Set<string>();
    while (Date.now() < deadline && backOnStandby.size < apiUrls.length) {
      const before = await Promise.all(apiUrls.map((url) => servedBy([url])));
      await writeThenRead(round);
      round += 1;
      for (const [index, url] of apiUrls.entries()) {
        const served = delta(await servedBy([url]), before[index] ?? {});
        if ((served['replica:caught_up'] ?? 0) + (served['replica:waited'] ?? 0) > 0) backOnStandby.add(url);
      }
      await new Promise((resolveLater) => setTimeout(resolveLater, 300));
    }
    expect([...backOnStandby].sort()).toEqual([...apiUrls].sort());
    for (const app of apps.filter((each) => each.name === 'api')) {
      const lines = app.output().split('\n');
      expect(lines.filter((line) => line.includes('the read replica is unavailable')).length).toBe(1);
      expect(lines.filter((line) => line.includes('public reads are served by the read replica again')).length).toBe(1);
      expect(app.child.exitCode).toBeNull();
    }
  });
});
