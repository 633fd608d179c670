import { jest } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { api, internal } from './support/client.js';
import { createAssessment } from './support/core-helpers.js';
import { ADMIN_URL, freshDatabase } from './support/processes.js';
import { pgliteTemplate, startService } from './support/service.js';

jest.setTimeout(300_000);

const AUDIT_ENTRY = resolve('dist/apps/audit/src/main.js');
const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const audit = (env: Record<string, string>, args: string[]): Promise<Ran> =>
  new Promise((resolveRun) => {
    execFile(process.execPath, [AUDIT_ENTRY, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolveRun({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });

/** A stopped store an auditor can edit by hand and run the command line on: a copy per edit. */
interface StoppedLog {
  /** A fresh copy of the stopped log: its command-line environment and a way to run SQL on it. */
  copy(): Promise<{ env: Record<string, string>; sql: (statements: string[]) => Promise<Record<string, unknown>[][]> }>;
  drop(): Promise<void>;
}

/** Runs statements on a stopped embedded DATA_DIR, as its owner could with PGlite. */
const embeddedSql = (dataDir: string, statements: string[]): Record<string, unknown>[][] => {
  const script = join(dataDir, 'edit.mjs');
  writeFileSync(script, `import(${JSON.stringify(pathToFileURL(resolve('dist/libs/event-store/src/index.js')).href)})
    .then(async ({ startEmbeddedDatabase }) => {
      const db = await startEmbeddedDatabase({ dataDir: ${JSON.stringify(dataDir)} });
      const results = [];
      for (const statement of ${JSON.stringify(statements)}) results.push((await db.pool.query(statement)).rows);
      await db.stop();
      (await import('node:fs')).writeFileSync(${JSON.stringify(join(dataDir, 'edit.json'))}, JSON.stringify(results));
    })
    .catch((error) => { console.error(error); process.exit(1); });`);
  execFileSync(process.execPath, [script], { timeout: 120_000, stdio: 'ignore' });
  const output = readFileSync(join(dataDir, 'edit.json'), 'utf8');
  rmSync(script);
  rmSync(join(dataDir, 'edit.json'));
  return JSON.parse(output) as Record<string, unknown>[][];
};

/** A minute of use, then a clean stop (SIGTERM): a workspace, an assessment, a candidate who finished and was unlocked, a test candidate deleted. */
const useThenStop = async (env: Record<string, string>, dataDir?: string): Promise<{ candidateId: string; assessmentId: string }> => {
  const service = await startService(env, dataDir === undefined ? {} : { dataDir });
  try {
    const app = internal(service);
    const ws = await app.workspace();
    const assessment = await createAssessment(service, ws.live, { name: 'Audited hire' });
    const registered = await app.register({ inviteUrl: assessment.inviteUrl, email: `kept.${unique}@example.com`, firstName: 'Kept', surname: 'Candidate' });
    const candidateId: string = registered.body.data.candidateId;
    await app.start(candidateId, assessment.id);
    const completed = await app.complete(candidateId, assessment.id, assessment.tests[0].slug);
    expect((await app.unlock(completed.body.data.resultId)).status).toBe(200);
    expect((await api(service, ws.live).get(`/v1/candidates/${candidateId}`)).status).toBe(200);
    const invited = await api(service, ws.sandbox).post(`/v1/assessments/${assessment.id}/invitations`,
      { candidates: [{ email: `trial.${unique}@example.com`, firstName: 'Trial', surname: 'Run' }] });
    expect(invited.status).toBe(200);
    const tried = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
    expect((await app.call('DELETE', `/internal/candidates/${tried.body.data.candidateId}`)).status).toBe(204);
    return { candidateId, assessmentId: assessment.id };
  } finally {
    await service.stop('SIGTERM');
  }
};

describe.each(['embedded store', 'PostgreSQL'] as const)('removals caught by verify on the %s, after a clean stop', (where) => {
  let log: StoppedLog;
  let made: { candidateId: string; assessmentId: string };

  beforeAll(async () => {
    if (where === 'embedded store') {
      const dataDir = mkdtempSync(join(tmpdir(), 'audit-removals-'));
      cpSync(await pgliteTemplate(), join(dataDir, 'pglite'), { recursive: true });
      made = await useThenStop({}, dataDir);
      const copies: string[] = [dataDir];
      log = {
        async copy() {
          const copyDir = mkdtempSync(join(tmpdir(), 'audit-removals-copy-'));
          cpSync(dataDir, copyDir, { recursive: true });
          copies.push(copyDir);
          return { env: { DATA_DIR: copyDir }, sql: async (statements) => embeddedSql(copyDir, statements) };
        },
        async drop() {
          for (const dir of copies) rmSync(dir, { recursive: true, force: true });
        },
      };
    } else {
      const database = await freshDatabase();
      const secret = `removals-secret-${unique}`;
      made = await useThenStop({ EVENT_STORE_URL: database.url, SERVICE_SECRET: secret });
      const copies: string[] = [];
      log = {
        async copy() {
          const name = `${new URL(database.url).pathname.slice(1)}_c${copies.length}`;
          const admin = new pg.Client({ connectionString: ADMIN_URL });
          await admin.connect();
          await admin.query(`CREATE DATABASE ${name} TEMPLATE ${new URL(database.url).pathname.slice(1)}`);
          await admin.end();
          copies.push(name);
          const url = `postgres://postgres@127.0.0.1:5432/${name}`;
          return {
            env: { EVENT_STORE_URL: url, SERVICE_SECRET: secret },
            sql: async (statements) => {
              const client = new pg.Client({ connectionString: url });
              await client.connect();
              try {
                const results: Record<string, unknown>[][] = [];
                for (const statement of statements) results.push((await client.query(statement)).rows);
                return results;
              } finally {
                await client.end();
              }
            },
          };
        },
        async drop() {
          const admin = new pg.Client({ connectionString: ADMIN_URL });
          await admin.connect();
          for (const name of copies) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await admin.end();
          await database.drop();
        },
      };
    }
  });

  afterAll(async () => {
    await log?.drop();
  });

  it('verifies the log as the service left it: sealed and linked to its last event by the clean stop', async () => {
    const { env } = await log.copy();
    const verified = await audit(env, ['verify']);
    expect(verified.stdout).toMatch(/ 0 events after the last seal, 0 after the last link, 0 anchors, 0 problems/);
    expect(verified.code).toBe(0);
  });

  it('catches the newest event of a candidate\'s stream deleted, naming its position', async () => {
    const { env, sql } = await log.copy();
    const [[newest]] = await sql([`SELECT max(position)::text AS position FROM public.events WHERE stream_id = 'candidate-${made.candidateId}'`]);
    await sql([`DELETE FROM public.events WHERE position = ${String(newest?.position)}`]);
    const caught = await audit(env, ['verify']);
    expect(caught.code).toBe(1);
    expect(caught.stdout).toContain(`first broken link: position ${String(newest?.position)}: linked into the log's order, and no longer in the log`);
  });

  it('catches an assessment\'s whole stream deleted', async () => {
    const { env, sql } = await log.copy();
    const [[first]] = await sql([
      `SELECT min(position)::text AS position FROM public.events WHERE stream_id = 'assessment-${made.assessmentId}'`,
      `DELETE FROM public.events WHERE stream_id = 'assessment-${made.assessmentId}'`,
    ]);
    const caught = await audit(env, ['verify']);
    expect(caught.code).toBe(1);
    expect(caught.stdout).toContain(`first broken link: position ${String(first?.position)}: linked into the log's order, and no longer in the log`);
  });

  it('catches the tail truncated with the newer seals and links for an auditor who kept the anchor `head` printed', async () => {
    const { env, sql } = await log.copy();
    const head = await audit(env, ['head']);
    expect(head.code).toBe(0);
    const anchor = JSON.parse(head.stdout) as { sequence: number; toPosition: string; link: string };
    expect(anchor).toMatchObject({ sequence: expect.any(Number), toPosition: expect.stringMatching(/^\d+$/), link: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const [[cut]] = await sql([`SELECT (max(position) - 3)::text AS position FROM public.events`]);
    await sql([
      `DELETE FROM public.events WHERE position >= ${String(cut?.position)}`,
      `DELETE FROM public.audit_links WHERE position >= ${String(cut?.position)}`,
      `DELETE FROM public.audit_seals WHERE (seal->>'toPosition')::bigint >= ${String(cut?.position)}`,
    ]);
    // The database alone no longer shows it...
    expect((await audit(env, ['verify'])).code).toBe(0);
    // ...the anchor kept outside does.
    const caught = await audit(env, ['verify', '--anchor', head.stdout.trim()]);
    expect(caught.code).toBe(1);
    expect(caught.stdout).toContain(`first broken link: kept seal ${anchor.sequence} (up to position ${anchor.toPosition}): the log no longer holds the event at position ${anchor.toPosition}`);
  });
});
