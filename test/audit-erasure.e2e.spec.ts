import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { api, internal } from './support/client.js';
import { createAssessment } from './support/core-helpers.js';
import { redisMentioning, tablesMentioning } from './support/erasure-checks.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { freshDatabase } from './support/processes.js';
import { startService, type RunningService } from './support/service.js';

jest.setTimeout(240_000);

const AUDIT_ENTRY = resolve('dist/apps/audit/src/main.js');
const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const ADDRESS = `erase.me.${unique}@example.com`;
const FIRST_NAME = `Zelda${unique}`;
const SURNAME = `Forgotten${unique}`;
const NEEDLES = [ADDRESS, FIRST_NAME, SURNAME];

const audit = (env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string }> =>
  new Promise((resolveRun) => {
    execFile(process.execPath, [AUDIT_ENTRY, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, timeout: 120_000 }, (error, stdout) => {
      resolveRun({ code: error ? Number(error.code ?? 1) : 0, stdout });
    });
  });

describe('erasure of a deleted test candidate (e2e, PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let service: RunningService;
  let receiver: WebhookReceiver;
  let redis: Redis;
  const secret = `erasure-secret-${unique}`;

  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startWebhookReceiver();
    redis = new Redis('redis://127.0.0.1:6379');
    service = await startService({ EVENT_STORE_URL: database.url, SERVICE_SECRET: secret, WEBHOOK_ALLOW_INSECURE: 'true', SEAL_INTERVAL_MS: '200', LOG_LEVEL: 'debug' });
  });

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    redis?.disconnect();
    await database?.drop();
  });

  it('leaves the events and a verifying log, and the person readable nowhere: tables, Redis, history, as-of, a rebuild, the logs', async () => {
    const app = internal(service);
    const ws = await app.workspace();
    await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: receiver.url, events: ['candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked'] });
    const assessment = await createAssessment(service, ws.sandbox, { name: 'Erasure drill' });
    const invited = await api(service, ws.sandbox).post(`/v1/assessments/${assessment.id}/invitations`,
      { candidates: [{ email: ADDRESS, firstName: FIRST_NAME, surname: SURNAME }] }, { 'Idempotency-Key': `erase-${unique}` });
    expect(invited.status).toBe(200);
    const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
    const candidateId: string = registered.body.data.candidateId;
    await app.start(candidateId, assessment.id);
    await app.complete(candidateId, assessment.id, assessment.tests[0].slug);
    await eventually(async () => (await app.call('GET', `/internal/workspaces/${ws.id}/webhook-deliveries`)).body.data, (list: { status: string }[]) =>
      list.length >= 4 && list.every((delivery) => delivery.status === 'succeeded'), 30_000, 'webhook deliveries');
    await eventually(async () => (await app.call('GET', `/internal/emails?to=${encodeURIComponent(ADDRESS)}`)).body.data, (list: unknown[]) => list.length === 1, 15_000, 'invitation e-mail');
    const createdAt = (await api(service, ws.sandbox).get(`/v1/candidates/${candidateId}`)).body.data.updatedAt as string;

    // Before: the person is in the clear where the service needs them, and nowhere in the log.
    expect((await tablesMentioning(database.url, NEEDLES)).length).toBeGreaterThan(0);
    expect((await redisMentioning(redis, NEEDLES)).length).toBeGreaterThan(0);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const inLog = await client.query(`SELECT count(*)::int AS n FROM public.events WHERE data::text LIKE $1 OR stream_id LIKE $2`, [`%${unique}%`, `%${unique}%`]);
    expect(inLog.rows[0].n).toBe(0);
    const events = (await client.query(`SELECT count(*)::int AS n FROM public.events`)).rows[0].n as number;

    expect((await app.call('DELETE', `/internal/candidates/${candidateId}`)).status).toBe(204);

    expect(await tablesMentioning(database.url, NEEDLES)).toEqual([]);
    expect(await redisMentioning(redis, NEEDLES)).toEqual([]);
    expect((await client.query(`SELECT count(*)::int AS n FROM public.events`)).rows[0].n).toBeGreaterThan(events);
    await client.end();
    const history = (await app.call('GET', `/internal/streams/candidate-${candidateId}`)).body.data as { type: string; data: Record<string, unknown> }[];
    expect(history.map((event) => event.type)).toEqual(expect.arrayContaining(['CandidateCreated', 'CandidateDeleted']));
    expect(history[0]?.data).toMatchObject({ email: '[erased]', firstName: '[erased]', surname: '[erased]' });
    const asOf = await app.call('GET', `/internal/as-of/candidates/${candidateId}?at=${encodeURIComponent(createdAt)}`);
    expect(asOf.body.data).toMatchObject({ id: candidateId, email: '[erased]', firstName: '[erased]', surname: '[erased]' });
    expect((await app.call('GET', `/internal/emails?to=${encodeURIComponent(ADDRESS)}`)).body.data).toEqual([]);

    const env = { EVENT_STORE_URL: database.url, SERVICE_SECRET: secret };
    await app.call('POST', '/internal/audit/seal');
    const verified = await audit(env, ['verify']);
    expect(verified.stdout).toMatch(/ 0 problems/);
    expect(verified.code).toBe(0);
    expect((await audit(env, ['rebuild'])).code).toBe(0);
    expect(await tablesMentioning(database.url, NEEDLES)).toEqual([]);
    expect(NEEDLES.filter((needle) => service.output().includes(needle))).toEqual([]);
  });
});
