import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { jest } from '@jest/globals';
import pg from 'pg';
import { api, request } from './support/client.js';
import { spawnService } from './support/core-process.js';
import { freshDatabase } from './support/processes.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { uniqueEmail, world } from './support/messaging-world.js';
import { pgliteTemplate, removeDataDir, startService, type RunningService } from './support/service.js';

jest.setTimeout(180_000);

/** Every file and folder under `root` (itself included) that a group or other user could use, with its mode. */
const openToOthers = (root: string): string[] => {
  const found: string[] = [];
  const visit = (path: string): void => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) found.push(`${relative(root, path) || '.'} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
};

/** Secrets the service holds stay out of its output, and its files out of other users' reach. */
describe('secrets and files (e2e)', () => {
  describe('a first start on a fresh DATA_DIR, with INTERNAL_TOKEN set', () => {
    const TOKEN_IN_ADDRESS = `integrator-token-${Math.random().toString(36).slice(2)}`;
    let dataDir: string;
    let service: RunningService;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      receiver = await startWebhookReceiver(() => ({ status: 500 }));
      dataDir = join(mkdtempSync(join(tmpdir(), 'hiring-secrets-')), 'data');
      service = await startService({ WEBHOOK_ALLOW_INSECURE: 'true', DEMO_WORKSPACE: 'true' }, { dataDir });
    }, 120_000);

    afterAll(async () => {
      await service?.stop();
      await receiver?.close();
      if (dataDir) {
        await removeDataDir(dataDir);
        rmSync(dirname(dataDir), { recursive: true, force: true });
      }
    });

    it('does not print the internal token it was given', () => {
      expect(service.output()).toMatch(/Internal token +the value of INTERNAL_TOKEN/);
      expect(service.output()).not.toContain(service.internalToken);
    });

    it('logs a failing webhook address without its query string, and keeps the address whole where the workspace sees it', async () => {
      const w = world(service);
      const url = `${receiver.url}?token=${TOKEN_IN_ADDRESS}#${TOKEN_IN_ADDRESS}`;
      const ws = await w.workspace({ url, events: ['candidateInvited'] });
      const assessment = await w.assessment(ws.live);
      await w.invite(ws.live, assessment.id, [{ email: uniqueEmail('secrets') }]);
      await eventually(async () => service.output(), (output) => output.includes('webhook attempt failed'), 30_000, 'a failed attempt in the log');
      expect(service.output()).toContain(`${receiver.url}?…redacted`);
      expect(service.output()).not.toContain(TOKEN_IN_ADDRESS);
      const [delivery] = await w.deliveries(ws.id);
      expect(delivery?.url).toBe(url);
    });

    it('keeps every file and folder under DATA_DIR to the service alone', () => {
      expect(openToOthers(dataDir)).toEqual([]);
      // The embedded store, the service secret and the demo keys are all there to be protected.
      expect(readdirSync(dataDir).sort()).toEqual(expect.arrayContaining(['demo-workspace.json', 'pglite', 'service-secret']));
    });
  });

  describe('a start on a DATA_DIR an earlier version left open, with a generated token', () => {
    let dataDir: string;
    let service: RunningService;

    beforeAll(async () => {
      dataDir = join(mkdtempSync(join(tmpdir(), 'hiring-secrets-')), 'data');
      // What earlier versions left: a 0755 DATA_DIR, PGlite's files 0666.
      cpSync(await pgliteTemplate(), join(dataDir, 'pglite'), { recursive: true });
      const loosen = (path: string): void => {
        const stats = lstatSync(path);
        chmodSync(path, stats.isDirectory() ? 0o755 : 0o666);
        if (stats.isDirectory()) for (const name of readdirSync(path)) loosen(join(path, name));
      };
      writeFileSync(join(dataDir, 'notes.txt'), 'left by an operator');
      loosen(dataDir);
      mkdirSync(join(dataDir, 'empty'), { mode: 0o777 });
      chmodSync(join(dataDir, 'empty'), 0o777);
      expect(openToOthers(dataDir).length).toBeGreaterThan(900);
      service = await startService({ INTERNAL_TOKEN: '' }, { dataDir });
    }, 120_000);

    afterAll(async () => {
      await service?.stop();
      if (dataDir) {
        await removeDataDir(dataDir);
        rmSync(dirname(dataDir), { recursive: true, force: true });
      }
    });

    it('closes it at start, and says so in one log line', () => {
      expect(openToOthers(dataDir)).toEqual([]);
      expect(service.output().match(/DATA_DIR was open to other users/g)).toHaveLength(1);
    });

    it('prints the token it generated, which opens the internal application', async () => {
      const printed = /Internal token +(\S+) +\(generated: set INTERNAL_TOKEN to keep one\)/.exec(service.output())?.[1];
      expect(printed).toEqual(expect.any(String));
      const answer = await request(`${service.internalUrl}/internal/health`, { headers: { authorization: `Bearer ${printed}` } });
      expect(answer.status).toBe(200);
    });
  });

  describe('a start with a setting it cannot use', () => {
    it.each([
      [{ EVENT_STORE_URL: 'mysql://app:secret-pw@127.0.0.1/hiring' }, /^EVENT_STORE_URL must be a postgres:\/\/ or esdb:\/\/ \(or kurrentdb:\/\/\) URL$/],
      [{ READ_STORE_URL: 'mongo://app:secret-pw@127.0.0.1/hiring' }, /^READ_STORE_URL must be a postgres:\/\/ or mongodb:\/\/ URL$/],
      [{ PORT: 'eighty' }, /^PORT must be a whole number/],
      [{ REDIS_SENTINELS: '127.0.0.1:x:y' }, /^REDIS_SENTINELS must be a comma-separated list of host:port/],
    ])('%j: refused in one line naming the setting (never a password of a URL), exit code 1, nothing written', async (env, line) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'hiring-refused-'));
      try {
        const refused = await spawnService({ DATA_DIR: dataDir, ...env });
        const code = await Promise.race([refused.exited, new Promise<'timeout'>((resolveTimeout) => setTimeout(() => resolveTimeout('timeout'), 30_000))]);
        if (code === 'timeout') await refused.kill();
        expect(code).toBe(1);
        expect(refused.stderr().split('\n').filter((text) => text.trim() !== '')).toEqual([expect.stringMatching(line)]);
        expect(refused.stderr()).not.toContain('secret-pw');
        expect(readdirSync(dataDir)).toEqual([]);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 40_000);
  });

  describe('a database written with one service secret, and a process started on it with another', () => {
    let database: { url: string; drop: () => Promise<void> };
    const dataDirs: string[] = [];
    const dataDir = (): string => {
      const made = mkdtempSync(join(tmpdir(), 'hiring-foreign-secret-'));
      dataDirs.push(made);
      return made;
    };

    beforeAll(async () => {
      database = await freshDatabase();
    });

    afterAll(async () => {
      await database?.drop();
      for (const made of dataDirs) rmSync(made, { recursive: true, force: true });
    });

    it('refuses to start with one line naming SERVICE_SECRET, changes nothing, and the right secret still opens everything', async () => {
      // A standalone process on PostgreSQL keeps its generated secret in its DATA_DIR: a new DATA_DIR means another secret.
      const written = dataDir();
      const first = await startService({ EVENT_STORE_URL: database.url }, { dataDir: written });
      const people = world(first);
      const ws = await people.workspace();
      const assessment = await people.assessment(ws.live);
      const person = uniqueEmail('foreign-secret');
      await people.invite(ws.live, assessment.id, [{ email: person, firstName: 'Ann', surname: 'Lee' }]);
      await first.stop();
      const countEvents = async (): Promise<number> => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          return Number((await client.query<{ count: string }>('SELECT count(*) FROM public.events')).rows[0]?.count);
        } finally {
          await client.end();
        }
      };
      const eventsBefore = await countEvents();

      const foreign = await spawnService({ EVENT_STORE_URL: database.url, DATA_DIR: dataDir() });
      const code = await Promise.race([foreign.exited, new Promise<'timeout'>((resolveTimeout) => setTimeout(() => resolveTimeout('timeout'), 60_000))]);
      if (code === 'timeout') await foreign.kill();
      expect(code).toBe(1);
      const lines = foreign.stderr().split('\n').filter((line) => line.trim() !== '');
      expect(lines).toEqual([expect.stringMatching(/^refusing to start: the database was written with another service secret .*SERVICE_SECRET/)]);
      expect(await countEvents()).toBe(eventsBefore);

      const again = await startService({ EVENT_STORE_URL: database.url }, { dataDir: written });
      try {
        // Deciding it reads the invitation's sealed address: with another secret this was a 500.
        const reinvited = await people.invite(api(again, ws.liveCredential), assessment.id, [{ email: person }]);
        expect(reinvited.body.data[0]).toMatchObject({ email: person, status: 'already_invited' });
      } finally {
        await again.stop();
      }
    }, 180_000);
  });
});
