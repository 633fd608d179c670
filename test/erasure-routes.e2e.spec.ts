import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { api, internal } from './support/client.js';
import { createAssessment } from './support/core-helpers.js';
import { personKeys, redisMentioning, settled, tablesMentioning } from './support/erasure-checks.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { freshDatabase } from './support/processes.js';
import { startService, type RunningService } from './support/service.js';

jest.setTimeout(240_000);

/**
 * Deleting a test candidate erases their personal data whichever route deletes them: the web page's
 * form or the JSON API. Both are held to what test/audit-erasure.e2e.spec.ts checks after the JSON
 * route: the person's key destroyed, the e-mail outbox and the webhook delivery log redacted, the
 * Redis copies (idempotency records, job payloads) gone. Erasure may follow the deletion shortly
 * after the answer (a reaction to the deletion in the log): it is given ERASURE_MS to happen.
 */
const ERASURE_MS = 10_000;

describe('erasure of a deleted test candidate, from either route (e2e, PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let service: RunningService;
  let receiver: WebhookReceiver;
  let redis: Redis;
  const secret = `erasure-routes-${Date.now()}`;
  /** Workspaces made here: their idempotency records (24 h in Redis) go at the end, erased or not. */
  const workspaces: string[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startWebhookReceiver();
    redis = new Redis('redis://127.0.0.1:6379');
    service = await startService({ EVENT_STORE_URL: database.url, SERVICE_SECRET: secret, WEBHOOK_ALLOW_INSECURE: 'true' });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    for (const id of workspaces) {
      const keys = [...await redis.keys(`idem:${id}:*`), ...await redis.keys(`idem:{${id}}:*`)];
      if (keys.length > 0) await redis.del(...keys);
    }
    redis?.disconnect();
    await database?.drop();
  });

  /** A sandbox candidate with copies of their data everywhere erasure must reach: outbox, delivery log, Redis, their key. */
  const testCandidate = async (label: string) => {
    const unique = `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const person = { email: `erase.${unique}@example.com`, firstName: `Zelda${unique}`, surname: `Forgotten${unique}` };
    const app = internal(service);
    const ws = await app.workspace({ name: `Erasure ${label}` });
    workspaces.push(ws.id);
    await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: receiver.url, events: ['candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted'] });
    const assessment = await createAssessment(service, ws.sandbox, { name: `Erasure ${label}` });
    const invited = await api(service, ws.sandbox).post(`/v1/assessments/${assessment.id}/invitations`, { candidates: [person] }, { 'Idempotency-Key': `erase-${unique}` });
    expect(invited.status).toBe(200);
    const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
    expect(registered.status).toBe(201);
    const candidateId: string = registered.body.data.candidateId;
    expect((await app.start(candidateId, assessment.id)).status).toBe(200);
    expect((await app.complete(candidateId, assessment.id, assessment.tests[0].slug)).status).toBe(201);
    await eventually(async () => (await app.call('GET', `/internal/workspaces/${ws.id}/webhook-deliveries`)).body.data, (list: { status: string }[]) =>
      list.length >= 4 && list.every((delivery) => delivery.status === 'succeeded'), 30_000, 'webhook deliveries');
    await eventually(async () => (await app.call('GET', `/internal/emails?to=${encodeURIComponent(person.email)}`)).body.data, (list: unknown[]) => list.length === 1, 15_000, 'invitation e-mail');
    const needles = [person.email, person.firstName, person.surname];

    // Before: the person is in the clear where the service keeps copies, under a live key.
    const tables = await tablesMentioning(database.url, needles);
    expect(tables.some((row) => row.startsWith('messaging.'))).toBe(true);
    expect((await redisMentioning(redis, needles)).length).toBeGreaterThan(0);
    expect(await personKeys(database.url, secret, ws.id, person.email)).toEqual({ live: 1, destroyed: 0 });
    return { ws, person, candidateId, needles };
  };

  /** After the deletion: within ERASURE_MS, no key, no table row, no Redis key holds the person; the answers agree. */
  const expectErased = async ({ ws, person, candidateId, needles }: Awaited<ReturnType<typeof testCandidate>>) => {
    // Deleted, whatever follows: the public API no longer knows them.
    expect((await api(service, ws.sandbox).get(`/v1/candidates/${candidateId}`)).status).toBe(404);
    const state = async () => ({
      personKeys: await personKeys(database.url, secret, ws.id, person.email),
      tableRows: await tablesMentioning(database.url, needles),
      redisKeys: await redisMentioning(redis, needles),
    });
    const erased = (seen: Awaited<ReturnType<typeof state>>) => seen.personKeys.live === 0 && seen.tableRows.length === 0 && seen.redisKeys.length === 0;
    const seen = await settled(state, erased, ERASURE_MS);
    expect(seen).toEqual({ personKeys: { live: 0, destroyed: 1 }, tableRows: [], redisKeys: [] });

    const app = internal(service);
    expect((await app.call('GET', `/internal/emails?to=${encodeURIComponent(person.email)}`)).body.data).toEqual([]);
    const deliveries = (await app.call('GET', `/internal/workspaces/${ws.id}/webhook-deliveries`)).body.data as unknown[];
    expect(deliveries.length).toBeGreaterThanOrEqual(4);
    expect(needles.filter((needle) => JSON.stringify(deliveries).includes(needle))).toEqual([]);
    const history = (await app.call('GET', `/internal/streams/candidate-${candidateId}`)).body.data as { type: string; data: Record<string, unknown> }[];
    expect(history.map((event) => event.type)).toEqual(expect.arrayContaining(['CandidateCreated', 'CandidateDeleted']));
    expect(history.find((event) => event.type === 'CandidateCreated')?.data).toMatchObject({ email: '[erased]', firstName: '[erased]', surname: '[erased]' });
  };

  it('erases them when the web page\'s "Delete test candidate" form deletes them', async () => {
    const candidate = await testCandidate('page');
    const origin = { origin: service.internalUrl };
    const signedIn = await fetch(`${service.internalUrl}/sign-in`, {
      method: 'POST', redirect: 'manual',
      headers: { ...origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: service.internalToken, next: '/' }).toString(),
    });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie().map((line) => line.split(';')[0] ?? '').find((pair) => pair.startsWith('hiring_session='));
    // A sealed session: its base64url payload, a dot, and the payload's HMAC-SHA256 in base64url.
    expect(session).toMatch(/^hiring_session=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const cookie = { cookie: session ?? '' };

    // The candidate's page, as the browser gets it: the delete form and the session's CSRF token in it.
    const page = await fetch(`${service.internalUrl}/candidates/${candidate.candidateId}`, { headers: cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    const action = `/candidates/${encodeURIComponent(candidate.candidateId)}/delete`;
    const form = html.slice(html.indexOf(`action="${action}"`));
    expect(form.length).toBeLessThan(html.length);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form)?.[1];
    // The session's CSRF token is an HMAC-SHA256 in base64url.
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const deleted = await fetch(`${service.internalUrl}${action}`, {
      method: 'POST', redirect: 'manual',
      headers: { ...cookie, ...origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf ?? '' }).toString(),
    });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toMatch(/^\/simulator/);
    await expectErased(candidate);
  });

  it('erases them when the JSON route (DELETE /internal/candidates/{id}) deletes them', async () => {
    const candidate = await testCandidate('json');
    expect((await internal(service).call('DELETE', `/internal/candidates/${candidate.candidateId}`)).status).toBe(204);
    await expectErased(candidate);
  });
});
