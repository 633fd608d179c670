import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { jest } from '@jest/globals';
import { request } from './support/client.js';
import { freshDatabase } from './support/processes.js';
import { startService, type RunningService } from './support/service.js';
import { GOLDEN_DIR, type GoldenManifest, missingFrom } from './golden/golden-world.js';

jest.setTimeout(240_000);

const AUDIT_ENTRY = resolve('dist/apps/audit/src/main.js');
const releases = existsSync(GOLDEN_DIR) ? readdirSync(GOLDEN_DIR).filter((entry) => existsSync(join(GOLDEN_DIR, entry, 'manifest.json'))).sort() : [];

/**
 * Golden databases: each release keeps, under test/golden/<release>/, a PostgreSQL dump of a database
 * it wrote, the secrets it was made with and the answers it gave (test/golden/make-golden.ts). Today's
 * service must start on a copy of every one of them and give every old answer again (fields may be
 * added, none changed or removed), with the old keys, the old webhook secret, a log that verifies,
 * and the same answers after a rebuild of the read models. None is ever removed.
 */
describe.each(releases)('a database written by release %s (e2e, PostgreSQL)', (release) => {
  const manifest = JSON.parse(readFileSync(join(GOLDEN_DIR, release, 'manifest.json'), 'utf8')) as GoldenManifest;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let service: RunningService;

  const askAll = async () => {
    const differences: string[] = [];
    for (const answer of manifest.answers) {
      const base = answer.app === 'api' ? service.baseUrl : service.internalUrl;
      const authorization = `Bearer ${answer.credential === 'internal' ? manifest.internalToken : manifest.credentials[answer.credential]}`;
      const now = await request(`${base}${answer.path}`, { headers: { authorization } });
      if (now.status !== answer.status) differences.push(`${answer.path} (${answer.credential}): status ${answer.status} -> ${now.status}`);
      else differences.push(...missingFrom(answer.body, now.body, manifest.volatile).map((difference) => `${answer.path} (${answer.credential}): ${difference}`));
    }
    return differences;
  };

  beforeAll(async () => {
    database = await freshDatabase();
    const dump = gunzipSync(readFileSync(join(GOLDEN_DIR, release, 'postgres.sql.gz')));
    execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', database.url, '-f', '-'], { input: dump, stdio: ['pipe', 'ignore', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
    service = await startService({ EVENT_STORE_URL: database.url, SERVICE_SECRET: manifest.serviceSecret, INTERNAL_TOKEN: manifest.internalToken, APP_URL: manifest.appUrl });
    // An upgrade builds the read models new in this version from the log (docs/operations.md, "Upgrades"):
    // until they are at the head the process is not ready, and an operator waits for that before serving.
    await untilReady(service);
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('gives every answer the release gave, with its keys and its webhook secret', async () => {
    expect(manifest.answers.length).toBeGreaterThan(10);
    expect(await askAll()).toEqual([]);
    const webhook = await request(`${service.internalUrl}/internal/workspaces/${manifest.workspaceId}/webhook`, { headers: { authorization: `Bearer ${manifest.internalToken}` } });
    expect(webhook.body.data.secret).toBe(manifest.webhookSecret);
  });

  it('gives each completion it wrote an updatedAt, and finds it by updated_since (API 1.2.0)', async () => {
    expect(await completionsByUpdate(service, manifest)).toEqual([]);
  });

  it('has a log that verifies', async () => {
    const verified = await runAudit(['verify'], service, database.url, manifest);
    expect({ code: verified.code, stdout: verified.stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/ 0 problems\n$/) });
  });

  it('gives the same answers after its read models are rebuilt from the log', async () => {
    const rebuilt = await runAudit(['rebuild'], service, database.url, manifest);
    expect(rebuilt.code).toBe(0);
    expect(await askAll()).toEqual([]);
    expect(await completionsByUpdate(service, manifest)).toEqual([]);
  });
});

const runAudit = (args: string[], service: RunningService, url: string, manifest: GoldenManifest): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolveRun) => {
    const env = {
      ...process.env, EVENT_STORE_URL: url, SERVICE_SECRET: manifest.serviceSecret, INTERNAL_TOKEN: manifest.internalToken,
      INTERNAL_PORT: new URL(service.internalUrl).port, DATA_DIR: service.dataDir, APP_URL: manifest.appUrl, LOG_LEVEL: 'warn',
    };
    execFile(process.execPath, [AUDIT_ENTRY, ...args], { env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolveRun({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });

const untilReady = async (service: RunningService): Promise<void> => {
  for (const deadline = Date.now() + 60_000; (await request(`${service.baseUrl}/health/ready`)).status !== 200;) {
    if (Date.now() > deadline) throw new Error('the service did not become ready within 60 s');
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
};

/**
 * API 1.2.0 on a release's data, for each key: every completion carries `updatedAt`, the later of its
 * `completedAt` and its latest unlock; `updated_since` lists exactly those at or after it, by
 * `updatedAt`; each one is found from its own `updatedAt` (inclusive). Returns what differs.
 */
const completionsByUpdate = async (service: RunningService, manifest: GoldenManifest): Promise<string[]> => {
  const differences: string[] = [];
  for (const [mode, credential] of Object.entries(manifest.credentials)) {
    const read = async (query: string) => {
      const answer = await request(`${service.baseUrl}/v1/completions?limit=100${query}`, { headers: { authorization: `Bearer ${credential}` } });
      if (answer.status !== 200) throw new Error(`${mode} /v1/completions${query}: ${answer.status} ${answer.text}`);
      return answer.body.data as { id: string; completedAt: string; updatedAt: string; results: { unlockedAt: string | null }[] }[];
    };
    const all = await read('&order=asc');
    for (const row of all) {
      const latest = [row.completedAt, ...row.results.map((result) => result.unlockedAt ?? '')].sort().at(-1);
      if (row.updatedAt !== latest) differences.push(`${mode} ${row.id}: updatedAt ${row.updatedAt}, expected ${latest}`);
      const found = await read(`&order=asc&updated_since=${encodeURIComponent(row.updatedAt)}`);
      if (!found.some((other) => other.id === row.id)) differences.push(`${mode} ${row.id}: not listed from its own updatedAt`);
    }
    const byUpdate = await read(`&order=asc&updated_since=2000-01-01`);
    const expected = [...all].sort((a, b) => (a.updatedAt === b.updatedAt ? (a.id < b.id ? -1 : 1) : a.updatedAt < b.updatedAt ? -1 : 1)).map((row) => row.id);
    if (JSON.stringify(byUpdate.map((row) => row.id)) !== JSON.stringify(expected)) differences.push(`${mode} updated_since lists ${byUpdate.map((row) => row.id).join(',')}, expected ${expected.join(',')}`);
    // Each golden database holds a live completion unlocked after it was finished.
    if (mode === 'live' && !all.some((row) => row.updatedAt > row.completedAt)) differences.push('live: no completion moved by an unlock');
  }
  return differences;
};
