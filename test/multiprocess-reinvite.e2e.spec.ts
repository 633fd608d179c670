import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '#platform';
import { request } from './support/client.js';
import { personKeys } from './support/erasure-checks.js';
import { type AppProcess, freshDatabase, startApp } from './support/processes.js';
import { deleteQueueKeys } from './support/service.js';

jest.setTimeout(240_000);

const ERASED = '[erased]';

/**
 * A test candidate deleted through the internal application, and the same address invited again at
 * once through an API process that invited them a moment before (so it still holds the person's key
 * in its cache, for a few seconds): the new person is a new person, readable everywhere, and the
 * deleted one stays erased.
 */
describe('a re-invited person across processes on PostgreSQL (e2e)', () => {
  const token = 'mp-reinvite-token';
  const secret = `mp-reinvite-secret-${Date.now()}`;
  const queuePrefix = `mp-reinvite-${Date.now().toString(36)}`;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let dataDir: string;
  const processes: AppProcess[] = [];
  const apiUrls: string[] = [];
  let internalUrl = '';

  const internal = (method: string, path: string, body?: unknown) =>
    request(`${internalUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body });

  beforeAll(async () => {
    database = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'hiring-mp-reinvite-'));
    const internalPort = await freeLoopbackPort();
    internalUrl = `http://127.0.0.1:${internalPort}`;
    const env = {
      EVENT_STORE_URL: database.url, SERVICE_SECRET: secret, INTERNAL_TOKEN: token, DATA_DIR: dataDir, QUEUE_PREFIX: queuePrefix,
      INTERNAL_PORT: String(internalPort), APP_URL: `http://localhost:${internalPort}`, HOST: '127.0.0.1',
    };
    processes.push(await startApp('worker', { ...env, LOG_LEVEL: 'info' }, async (output) => output.includes('worker running')));
    processes.push(await startApp('simulator', env, async () => (await internal('GET', '/internal/health')).status === 200));
    for (let i = 0; i < 2; i += 1) {
      const port = await freeLoopbackPort();
      const url = `http://127.0.0.1:${port}`;
      processes.push(await startApp('api', { ...env, PORT: String(port) }, async () => (await request(`${url}/v1/me`)).status === 401));
      apiUrls.push(url);
    }
  }, 180_000);

  afterAll(async () => {
    for (const process of processes.reverse()) await process.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await deleteQueueKeys(queuePrefix);
  }, 60_000);

  it('answers a re-invited person\'s real address and names through every API process, never "[erased]", and keeps the deleted one erased', async () => {
    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Reinvite' })).body.data;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    const key = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'sandbox' })).body.data;
    const auth = { authorization: `Bearer ${key.key}:${key.secret}` };
    const assessment = async (name: string) => {
      const created = await request(`${apiUrls[0]}/v1/assessments`, { method: 'POST', headers: auth, body: { name, tests: ['numerical-reasoning'] } });
      expect(created.status).toBe(201);
      return created.body.data.id as string;
    };
    const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    // Every cycle runs to its end: what each process answered is reported together.
    const problems: string[] = [];
    const newIds: string[] = [];

    for (let cycle = 0; cycle < 5; cycle += 1) {
      const inviter = apiUrls[cycle % 2] ?? '';
      // The second invitation is to another assessment: only the person is the same, not the invitation. Each cycle has its own two.
      const [firstId, againId] = [await assessment(`First ${cycle}`), await assessment(`Again ${cycle}`)];
      const person = { email: `again.${unique}.${cycle}@example.com`, firstName: `Ada${cycle}${unique}`, surname: `Again${cycle}${unique}` };
      const invite = async (assessmentId: string) => {
        const answer = await request(`${inviter}/v1/assessments/${assessmentId}/invitations`, { method: 'POST', headers: auth, body: { candidates: [person] } });
        expect({ status: answer.status, entry: answer.body?.data?.[0]?.status }).toEqual({ status: 200, entry: 'invited' });
        return answer.body.data[0].invitationUrl as string;
      };
      const register = async (invitationUrl: string, which: string) => {
        const answer = await internal('POST', '/internal/registrations', { invitationUrl });
        expect([200, 201]).toContain(answer.status);
        // 200 is "already registered": someone else's candidate, found by what the invitation reads as their address.
        if (answer.status !== 201) problems.push(`cycle ${cycle}: the ${which} registration answered ${answer.status} (already registered) with ${answer.text}`);
        return answer.body.data.candidateId as string;
      };

      // The inviting API process now holds this person's key; within its cache's few seconds:
      const deletedId = await register(await invite(firstId), 'first');
      expect((await internal('DELETE', `/internal/candidates/${deletedId}`)).status).toBe(204);
      const secondUrl = await invite(againId);
      const candidateId = await register(secondUrl, 'second');
      expect(candidateId).not.toBe(deletedId);
      // Five people, five candidates: none is merged into another person's record.
      if (newIds.includes(candidateId)) problems.push(`cycle ${cycle}: registered as ${candidateId}, the candidate of cycle ${newIds.indexOf(candidateId)}`);
      newIds.push(candidateId);

      // The new person, read through every API process: by id, and in the lists.
      const expected = JSON.stringify(pick({ id: candidateId, ...person }));
      const check = (what: string, seen: string) => { if (seen !== expected && seen !== `[${expected}]`) problems.push(`cycle ${cycle}, ${what}: ${seen}`); };
      for (const [index, url] of apiUrls.entries()) {
        const via = `invited through API ${cycle % 2}, read through API ${index}`;
        const single = await request(`${url}/v1/candidates/${candidateId}`, { headers: auth });
        check(`${via}, GET /v1/candidates/{id} ${single.status}`, JSON.stringify(pick(single.body?.data)));
        const byEmail = await request(`${url}/v1/candidates?email=${encodeURIComponent(person.email)}`, { headers: auth });
        check(`${via}, GET /v1/candidates?email= ${byEmail.status}`, JSON.stringify((byEmail.body?.data ?? []).map(pick)));
        const onAssessment = await request(`${url}/v1/candidates?assessment=${againId}&limit=100`, { headers: auth });
        check(`${via}, GET /v1/candidates?assessment= ${onAssessment.status}`,
          JSON.stringify(pick((onAssessment.body?.data ?? []).find((candidate: { id: string }) => candidate.id === candidateId))));
        // The deleted candidate is gone from every process.
        const deleted = await request(`${url}/v1/candidates/${deletedId}`, { headers: auth });
        if (deleted.status !== 404) problems.push(`cycle ${cycle}, read through API ${index}: the deleted candidate answers ${deleted.status}`);
      }

      // The invitation itself: its event in the assessment's stream (the newest invitation there), and its e-mail.
      const history = (await internal('GET', `/internal/streams/assessment-${againId}`)).body.data as { type: string; data: Record<string, unknown> }[];
      const invited = history.filter((event) => event.type === 'CandidateInvited').at(-1)?.data ?? {};
      check('the CandidateInvited event', JSON.stringify(pick({ id: candidateId, email: invited.email, firstName: invited.firstName, surname: invited.surname } as Record<string, string>)));
      const emails = (await internal('GET', `/internal/emails?to=${encodeURIComponent(person.email)}`)).body.data as { text: string }[];
      if (emails.filter((mail) => mail.text.includes(secondUrl)).length !== 1) problems.push(`cycle ${cycle}: no invitation e-mail with ${secondUrl}`);

      // The deleted one stays erased: their created event unreadable, a key destroyed, one live (the new person's).
      const deletedHistory = (await internal('GET', `/internal/streams/candidate-${deletedId}`)).body.data as { type: string; data: Record<string, string> }[];
      const deletedPerson = deletedHistory.find((event) => event.type === 'CandidateCreated')?.data;
      if ([deletedPerson?.email, deletedPerson?.firstName, deletedPerson?.surname].some((value) => value !== ERASED)) problems.push(`cycle ${cycle}: the deleted candidate's CandidateCreated reads ${JSON.stringify(pick(deletedPerson))}`);
      const keys = await personKeys(database.url, secret, workspace.id, person.email);
      if (keys.destroyed < 1 || keys.live !== 1) problems.push(`cycle ${cycle}: person_keys for the address: ${JSON.stringify(keys)} (expected a destroyed one and one live)`);
    }
    expect(problems).toEqual([]);
  });

  it('invites a deleted test candidate\'s address again to the same assessment, at once and after the key caches expired, as a new invitation', async () => {
    const workspace = (await internal('POST', '/internal/workspaces', { name: 'Reinvite same' })).body.data;
    await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
    const key = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'sandbox' })).body.data;
    const auth = { authorization: `Bearer ${key.key}:${key.secret}` };
    const created = await request(`${apiUrls[0]}/v1/assessments`, { method: 'POST', headers: auth, body: { name: 'Same', tests: ['numerical-reasoning'] } });
    const assessmentId = created.body.data.id as string;
    const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const seen: string[] = [];
    for (const [cycle, pauseMs] of [0, 6_000, 0, 6_000].entries()) {
      const person = { email: `same.${unique}.${cycle % 2}@example.com`, firstName: 'Bea', surname: `Same${cycle}` };
      const invite = async (url: string) => {
        const answer = await request(`${url}/v1/assessments/${assessmentId}/invitations`, { method: 'POST', headers: auth, body: { candidates: [person] } });
        return { status: answer.body?.data?.[0]?.status as string, url: answer.body?.data?.[0]?.invitationUrl as string };
      };
      const first = await invite(apiUrls[cycle % 2] ?? '');
      const registered = await internal('POST', '/internal/registrations', { invitationUrl: first.url });
      if (registered.status !== 201) {
        seen.push(`${cycle}: first ${first.status} ${first.url}, registered ${registered.status} ${registered.text}`);
        continue;
      }
      expect((await internal('DELETE', `/internal/candidates/${registered.body.data.candidateId}`)).status).toBe(204);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      // Through the other API process too: neither may answer with the deleted person's invitation.
      const again = await invite(apiUrls[(cycle + 1) % 2] ?? '');
      seen.push(`${cycle}: first ${first.status}, again ${again.status}${again.url === first.url ? ' with the deleted person\'s link' : ''}`);
      expect((await internal('POST', '/internal/registrations', { invitationUrl: again.url })).status).toBe(201);
      const newest = (await internal('GET', `/internal/streams/assessment-${assessmentId}`)).body.data
        .filter((event: { type: string }) => event.type === 'CandidateInvited').at(-1)?.data as { email?: string } | undefined;
      if (newest?.email !== person.email) seen.push(`${cycle}: the newest invitation reads ${String(newest?.email)}`);
      // The new person is deleted in turn, so that the next cycle of the address starts alike.
      const candidates = await request(`${apiUrls[0]}/v1/candidates?email=${encodeURIComponent(person.email)}`, { headers: auth });
      for (const candidate of candidates.body?.data ?? []) await internal('DELETE', `/internal/candidates/${candidate.id as string}`);
    }
    expect(seen).toEqual([0, 1, 2, 3].map((cycle) => `${cycle}: first invited, again invited`));
  });
});

/** The personal fields of a candidate as the API answers them. */
const pick = (candidate: { id?: string; email?: string; firstName?: string; surname?: string } | undefined) =>
  candidate === undefined ? null : { id: candidate.id, email: candidate.email, firstName: candidate.firstName, surname: candidate.surname };
