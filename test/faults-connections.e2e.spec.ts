import { jest } from '@jest/globals';
import pg from 'pg';
import { api, internal } from './support/client.js';
import { createAssessment } from './support/core-helpers.js';
import { eventually } from './support/messaging-receivers.js';
import { freshDatabase } from './support/processes.js';
import { startService, type RunningService } from './support/service.js';

jest.setTimeout(120_000);

/**
 * Every connection the database drops (a failover, `pg_terminate_backend`) must cost the process
 * nothing but the queries in flight: before, an idle pooled connection dropped by the server killed
 * the process with an unhandled 'error' event and ~290 lines of text.
 */
describe('dropped database connections (e2e, PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let service: RunningService;

  beforeAll(async () => {
    database = await freshDatabase();
    service = await startService({ EVENT_STORE_URL: database.url, SERVICE_SECRET: `drops-${Date.now()}`, LOG_LEVEL: 'warn' });
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('keeps the process up when the server terminates every connection, with one line each, and goes on serving and following the log', async () => {
    const app = internal(service);
    const ws = await app.workspace();
    const assessment = await createAssessment(service, ws.live, { name: 'Survives drops' });
    const client = api(service, ws.live);
    expect((await client.post(`/v1/assessments/${assessment.id}/invitations`, { candidates: [{ email: 'before.drop@example.com' }] })).status).toBe(200);

    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const dbName = new URL(database.url).pathname.slice(1);
    const terminated = await admin.query(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [dbName]);
    await admin.end();
    expect(terminated.rows[0].n).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(service.process.exitCode).toBeNull();

    // Served again (a request that met a dead connection may fail once; the next ones succeed).
    await eventually(async () => (await client.get('/v1/me')).status, (status: number) => status === 200, 10_000, 'the API answering again');
    expect((await client.post(`/v1/assessments/${assessment.id}/invitations`, { candidates: [{ email: 'after.drop@example.com' }] })).status).toBe(200);
    // The followers go on: the new invitation's e-mail is made from the log.
    await eventually(async () => (await app.call('GET', `/internal/emails?to=${encodeURIComponent('after.drop@example.com')}`)).body.data, (list: unknown[]) => list.length === 1, 20_000, 'the e-mail of the invitation made after the drop');
    expect(service.output()).not.toContain('Unhandled \'error\' event');
    const dropLines = service.output().split('\n').filter((line) => line.includes('a database connection was dropped'));
    expect(dropLines.length).toBeGreaterThan(0);
    for (const line of dropLines) {
      expect(JSON.parse(line)).toMatchObject({ level: 40, pool: expect.any(String), msg: 'a database connection was dropped; the pool opens another on next use' });
    }
  });
});
