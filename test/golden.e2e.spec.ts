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

  it('has a log that verifies', async () => {
    const verified = await runAudit(['verify'], service, database.url, manifest);
    expect({ code: verified.code, stdout: verified.stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/ 0 problems\n$/) });
  });

  it('gives the same answers after its read models are rebuilt from the log', async () => {
    const rebuilt = await runAudit(['rebuild'], service, database.url, manifest);
    expect(rebuilt.code).toBe(0);
    expect(await askAll()).toEqual([]);
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
