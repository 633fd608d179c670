import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import { api, internal, request } from './support/client.js';
import { ISO_TIME, type Workspace, addDays, createAssessment, domainToday, email, expectError, invite } from './support/core-helpers.js';
import { type RunningService, startService } from './support/service.js';

// Many requests per test on a shared, often loaded machine: the 5 s default is too tight.
jest.setTimeout(30_000);

const SCORES = { scorePercentage: 82.5, speedCompleted: 640, questionsAnswered: 20, questionsCorrect: 16, questionsIncorrect: 4, questionsTotal: 24 };

describe('internal application: write routes, audit streams, read-your-writes', () => {
  let service: RunningService;
  let app: ReturnType<typeof internal>;

  beforeAll(async () => {
    service = await startService({ SIMULATED_CLOCK: 'true' });
    app = internal(service);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  /** A verified workspace with an assessment, one registered live candidate and the ids. */
  const registeredCandidate = async (options: { ws?: Workspace; tests?: string[]; mode?: 'live' | 'sandbox' } = {}) => {
    const ws = options.ws ?? await app.workspace();
    const credential = options.mode === 'sandbox' ? ws.sandbox : ws.live;
    const assessment = await createAssessment(service, credential, { tests: options.tests ?? ['numerical-reasoning', 'verbal-reasoning'] });
    const address = email('internal');
    const invited = await invite(service, credential, assessment.id, [{ email: address, firstName: 'Ida', surname: 'Intern' }]);
    const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
    expect(registered.status).toBe(201);
    return { ws, credential, assessment, address, invitationUrl: invited.body.data[0].invitationUrl as string, candidateId: registered.body.data.candidateId as string };
  };

  const stream = async (streamId: string) => {
    const answer = await app.call('GET', `/internal/streams/${streamId}`);
    expect(answer.status).toBe(200);
    return answer.body.data as { id: string; streamId: string; revision: number; position: string; type: string; data: Record<string, any>; metadata: Record<string, any>; recordedAt: string }[];
  };

  describe('version', () => {
    const released = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

    it('GET /internal/health and the start banner name the release in package.json and the API version of the document', async () => {
      expect(released).toMatch(/^\d+\.\d+\.\d+/);
      const health = await app.call('GET', '/internal/health');
      expect(health.status).toBe(200);
      expect(health.body.data.version).toBe(released);
      expect(service.output()).toContain(`Hiring-test API ${released} is running`);
      // The contract's version beside the release, the same as the public document's.
      const document = (await request(`${service.baseUrl}/openapi.json`)).body as { info: { version: string } };
      expect(health.body.data.apiVersion).toBe(document.info.version);
      expect(service.output()).toContain(`release ${released}, API ${document.info.version}`);
      // Which Redis, and the prefix its queues use there (two services may share one Redis).
      expect(service.output()).toMatch(/\n {2}Redis +redis:\/\/[^\s@]+, queues under \S+ /);
    });
  });

  describe('access', () => {
    const routes: [string, string][] = [
      ['POST', '/internal/workspaces'], ['POST', '/internal/workspaces/ws_x/verify'], ['POST', '/internal/workspaces/ws_x/api-keys'],
      ['POST', '/internal/api-keys/key_x/regenerate'], ['PUT', '/internal/workspaces/ws_x/webhook'], ['GET', '/internal/workspaces/ws_x/webhook'],
      ['POST', '/internal/workspaces/ws_x/webhook/rotate-secret'], ['POST', '/internal/workspaces/ws_x/custom-tests'], ['POST', '/internal/assessments/asm_x/tests'],
      ['POST', '/internal/assessments/asm_x/close'], ['POST', '/internal/registrations'], ['POST', '/internal/candidates/c/assessments/a/start'],
      ['POST', '/internal/candidates/c/assessments/a/tests/s/complete'], ['POST', '/internal/results/r/unlock'], ['DELETE', '/internal/candidates/c'],
      ['GET', '/internal/workspaces/ws_x/billing'], ['GET', '/internal/emails?to=a@example.com'], ['GET', '/internal/workspaces/ws_x/webhook-deliveries'],
      ['POST', '/internal/webhook-deliveries/d/resend'], ['POST', '/internal/workspaces/ws_x/webhook/recover'], ['POST', '/internal/clock'], ['GET', '/internal/streams/workspace-x'], ['GET', '/internal/health'],
    ];

    it.each(routes)('%s %s answers 401 unauthorized without the internal token, with a wrong one, or with another scheme', async (method, path) => {
      const body = method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' };
      const variants: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token' }, { authorization: `Basic ${Buffer.from(service.internalToken).toString('base64')}` }, { authorization: service.internalToken }, { authorization: `Bearer ${service.internalToken}x` }];
      for (const headers of variants) {
        expectError(await request(`${service.internalUrl}${path}`, { method, headers, body }), 401, 'unauthorized');
      }
    });

    it.each(routes)('%s %s is not served on the public port', async (method, path) => {
      const body = method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' };
      const headers = { authorization: `Bearer ${service.internalToken}` };
      expectError(await request(`${service.baseUrl}${path}`, { method, headers, body }), 404, 'not_found');
      expectError(await request(`${service.baseUrl}/api${path}`, { method, headers, body }), 404, 'not_found');
    });

    it('does not serve the public API on the internal port', async () => {
      const ws = await app.workspace();
      // A public API key is no credential here: 401 first, as for every path (issue 26, finding 7).
      expectError(await request(`${service.internalUrl}/v1/me`, { headers: { authorization: `Bearer ${ws.live}` } }), 401, 'unauthorized');
      expectError(await app.call('GET', '/v1/me'), 404, 'not_found');
    });

    it('answers 404 not_found for unknown internal paths', async () => {
      expectError(await app.call('GET', '/internal/nothing'), 404, 'not_found');
      expectError(await app.call('POST', '/internal/workspaces/x/y/z', {}), 404, 'not_found');
    });

    it('answers 404 not_found for the reads of an unknown workspace, delivery or stream', async () => {
      expectError(await app.call('GET', '/internal/workspaces/ws_unknown/billing'), 404, 'not_found');
      expectError(await app.call('GET', '/internal/workspaces/ws_unknown/webhook-deliveries'), 404, 'not_found');
      expectError(await app.call('POST', '/internal/webhook-deliveries/whd_unknown/resend'), 404, 'not_found');
      expectError(await app.call('GET', '/internal/streams/workspace-ws_unknown'), 404, 'not_found');
    });
  });

  describe('workspaces and keys', () => {
    it('POST /internal/workspaces: 201 with { id, name, verified: false, freeAllowance }, default allowance 0', async () => {
      const created = await app.call('POST', '/internal/workspaces', { name: '  Trimmed Co  ' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ data: { id: expect.any(String), name: 'Trimmed Co', verified: false, freeAllowance: 0 } });
      const withAllowance = await app.call('POST', '/internal/workspaces', { name: 'Allowance', freeAllowance: 3 });
      expect(withAllowance.status).toBe(201);
      expect(withAllowance.body).toEqual({ data: { id: expect.any(String), name: 'Allowance', verified: false, freeAllowance: 3 } });
      expect(withAllowance.body.data.id).not.toBe(created.body.data.id);
      const events = await stream(`workspace-${created.body.data.id}`);
      expect(events.map((event) => event.type)).toEqual(['WorkspaceCreated']);
    });

    it.each([
      ['name missing', {}], ['name empty', { name: '' }], ['name blank', { name: '   ' }], ['name a number', { name: 5 }], ['name too long', { name: 'w'.repeat(201) }],
      ['freeAllowance negative', { name: 'a', freeAllowance: -1 }], ['freeAllowance a fraction', { name: 'a', freeAllowance: 1.5 }],
      ['freeAllowance a string', { name: 'a', freeAllowance: '3' }],
    ])('POST /internal/workspaces refuses %s with 422 validation_failed', async (_label, body) => {
      expectError(await app.call('POST', '/internal/workspaces', body), 422, 'validation_failed');
    });

    it('POST /internal/workspaces/{id}/verify: 200 verified; again 200; unknown 404', async () => {
      const created = (await app.call('POST', '/internal/workspaces', { name: 'Verify me', freeAllowance: 2 })).body.data;
      const verified = await app.call('POST', `/internal/workspaces/${created.id}/verify`);
      expect(verified.status).toBe(200);
      expect(verified.body).toEqual({ data: { id: created.id, name: 'Verify me', verified: true, freeAllowance: 2 } });
      const again = await app.call('POST', `/internal/workspaces/${created.id}/verify`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(verified.body);
      expectError(await app.call('POST', '/internal/workspaces/ws_unknown/verify'), 404, 'not_found');
      expect((await stream(`workspace-${created.id}`)).map((event) => event.type)).toEqual(['WorkspaceCreated', 'WorkspaceVerified']);
    });

    it('POST /internal/workspaces/{id}/api-keys: 201 { id, key, secret, mode }; sandbox keys start with SBX; usable at once', async () => {
      const created = (await app.call('POST', '/internal/workspaces', { name: 'Keys' })).body.data;
      const live = await app.call('POST', `/internal/workspaces/${created.id}/api-keys`, { mode: 'live' });
      expect(live.status).toBe(201);
      expect(live.body).toEqual({ data: { id: expect.any(String), key: expect.any(String), secret: expect.any(String), mode: 'live' } });
      expect(live.body.data.key.startsWith('SBX')).toBe(false);
      const sandbox = await app.call('POST', `/internal/workspaces/${created.id}/api-keys`, { mode: 'sandbox' });
      expect(sandbox.status).toBe(201);
      expect(sandbox.body).toEqual({ data: { id: expect.any(String), key: expect.stringMatching(/^SBX/), secret: expect.any(String), mode: 'sandbox' } });
      expect(new Set([live.body.data.id, sandbox.body.data.id]).size).toBe(2);
      // Read-your-writes: the key authenticates immediately.
      const me = await api(service, `${sandbox.body.data.key}:${sandbox.body.data.secret}`).get('/v1/me');
      expect(me.status).toBe(200);
      expect(me.body.data.mode).toBe('sandbox');
      expect((await api(service, `${live.body.data.key}:${live.body.data.secret}`).get('/v1/me')).body.data.mode).toBe('live');
      // The secret is never recorded.
      const events = await stream(`workspace-${created.id}`);
      expect(JSON.stringify(events)).not.toContain(live.body.data.secret);
      expect(JSON.stringify(events)).not.toContain(sandbox.body.data.secret);
      expectError(await app.call('POST', `/internal/workspaces/${created.id}/api-keys`, { mode: 'test' }), 422, 'validation_failed');
      expectError(await app.call('POST', `/internal/workspaces/${created.id}/api-keys`, {}), 422, 'validation_failed');
      expectError(await app.call('POST', `/internal/workspaces/${created.id}/api-keys`, { mode: 'LIVE' }), 422, 'validation_failed');
      expectError(await app.call('POST', '/internal/workspaces/ws_unknown/api-keys', { mode: 'live' }), 404, 'not_found');
    });

    it('POST /internal/api-keys/{id}/regenerate: 200 with a new key and secret, same id and mode; the old one is refused at once', async () => {
      const ws = await app.workspace();
      const regenerated = await app.call('POST', `/internal/api-keys/${ws.sandboxKey.id}/regenerate`);
      expect(regenerated.status).toBe(200);
      expect(regenerated.body).toEqual({ data: { id: ws.sandboxKey.id, key: expect.stringMatching(/^SBX/), secret: expect.any(String), mode: 'sandbox' } });
      expectError(await api(service, ws.sandbox).get('/v1/me'), 401, 'unauthorized');
      const fresh = await api(service, `${regenerated.body.data.key}:${regenerated.body.data.secret}`).get('/v1/me');
      expect(fresh.body.data).toMatchObject({ mode: 'sandbox', workspace: { id: ws.id } });
      // Regenerating twice: only the latest works.
      const twice = await app.call('POST', `/internal/api-keys/${ws.sandboxKey.id}/regenerate`);
      expectError(await api(service, `${regenerated.body.data.key}:${regenerated.body.data.secret}`).get('/v1/me'), 401, 'unauthorized');
      expect((await api(service, `${twice.body.data.key}:${twice.body.data.secret}`).get('/v1/me')).status).toBe(200);
      expectError(await app.call('POST', '/internal/api-keys/key_unknown/regenerate'), 404, 'not_found');
    });
  });

  describe('webhook settings', () => {
    it('PUT, GET, save again (secret kept, address enabled), rotate (new secret), validation', async () => {
      const ws = await app.workspace();
      expectError(await app.call('GET', `/internal/workspaces/${ws.id}/webhook`), 404, 'not_found');
      expectError(await app.call('POST', `/internal/workspaces/${ws.id}/webhook/rotate-secret`), 404, 'not_found');
      const saved = await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: 'https://hooks.example.com/in', events: ['testCompleted', 'candidateInvited'] });
      expect(saved.status).toBe(200);
      expect(saved.body).toEqual({ data: { url: 'https://hooks.example.com/in', events: expect.any(Array), secret: expect.any(String), enabled: true, disabledReason: null } });
      expect([...saved.body.data.events].sort()).toEqual(['candidateInvited', 'testCompleted']);
      expect(saved.body.data.secret.length).toBeGreaterThanOrEqual(16);
      const read = await app.call('GET', `/internal/workspaces/${ws.id}/webhook`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(saved.body);

      const resaved = await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, {
        url: 'https://hooks.example.com/v2', events: ['candidateCreated', 'candidateInvited', 'assessmentStarted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked'],
      });
      expect(resaved.status).toBe(200);
      expect(resaved.body.data).toMatchObject({ url: 'https://hooks.example.com/v2', secret: saved.body.data.secret, enabled: true, disabledReason: null });
      expect(resaved.body.data.events).toHaveLength(6);
      expect((await app.call('GET', `/internal/workspaces/${ws.id}/webhook`)).body).toEqual(resaved.body);

      const rotated = await app.call('POST', `/internal/workspaces/${ws.id}/webhook/rotate-secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body).toEqual({ data: { url: 'https://hooks.example.com/v2', events: resaved.body.data.events, secret: expect.any(String) } });
      expect(rotated.body.data.secret).not.toBe(saved.body.data.secret);
      expect((await app.call('GET', `/internal/workspaces/${ws.id}/webhook`)).body.data.secret).toBe(rotated.body.data.secret);
      // Saving after a rotation keeps the rotated secret.
      const afterRotation = await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: 'https://hooks.example.com/v3', events: ['resultUnlocked'] });
      expect(afterRotation.body.data.secret).toBe(rotated.body.data.secret);
      // The secret is never recorded in clear.
      expect(JSON.stringify(await stream(`workspace-${ws.id}`))).not.toContain(rotated.body.data.secret);

      for (const body of [
        { url: 'http://hooks.example.com/in', events: ['testCompleted'] },
        { url: 'https://localhost/in', events: ['testCompleted'] },
        { url: 'https://127.0.0.1/in', events: ['testCompleted'] },
        { url: 'https://10.1.2.3/in', events: ['testCompleted'] },
        { url: 'hooks.example.com/in', events: ['testCompleted'] },
        { url: 'ftp://hooks.example.com/in', events: ['testCompleted'] },
        { url: 'https://hooks.example.com/in', events: [] },
        { url: 'https://hooks.example.com/in', events: ['testFinished'] },
        { url: 'https://hooks.example.com/in', events: 'testCompleted' },
        { url: 'https://hooks.example.com/in' },
        { events: ['testCompleted'] },
        { url: 42, events: ['testCompleted'] },
      ]) {
        const answer = await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, body);
        expect({ body, status: answer.status, code: answer.body?.error?.code }).toEqual({ body, status: 422, code: 'validation_failed' });
      }
      expect((await app.call('GET', `/internal/workspaces/${ws.id}/webhook`)).body.data.url).toBe('https://hooks.example.com/v3');
      expectError(await app.call('PUT', '/internal/workspaces/ws_unknown/webhook', { url: 'https://hooks.example.com/in', events: ['testCompleted'] }), 404, 'not_found');
      expectError(await app.call('GET', '/internal/workspaces/ws_unknown/webhook'), 404, 'not_found');
      expectError(await app.call('POST', '/internal/workspaces/ws_unknown/webhook/rotate-secret'), 404, 'not_found');
    });
  });

  describe('custom tests and assessment tests', () => {
    it('creates a custom test (201) and appends it to an assessment (200 with the assessment), visible at once', async () => {
      const ws = await app.workspace();
      const custom = await app.call('POST', `/internal/workspaces/${ws.id}/custom-tests`, { name: ' Company values quiz ', minutes: 15, questionCount: 12 });
      expect(custom.status).toBe(201);
      expect(custom.body).toEqual({ data: { slug: expect.any(String), name: 'Company values quiz', type: 'custom' } });
      const assessment = await createAssessment(service, ws.live, { tests: ['numerical-reasoning'] });
      const added = await app.call('POST', `/internal/assessments/${assessment.id}/tests`, { slug: custom.body.data.slug });
      expect(added.status).toBe(200);
      const expected = { ...assessment, tests: [...assessment.tests, { slug: custom.body.data.slug, name: 'Company values quiz', type: 'custom' }] };
      expect(added.body).toEqual({ data: expected });
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).body).toEqual({ data: expected });
      expect((await api(service, ws.sandbox).get('/v1/assessments')).body.data[0].tests).toEqual(expected.tests);
      const events = await stream(`assessment-${assessment.id}`);
      expect(events.map((event) => event.type)).toEqual(['AssessmentCreated', 'AssessmentTestAdded']);
      expect(events[1]?.metadata.actor).toBe('internal');

      // A candidate can finish the custom test; the result says so.
      const invited = await invite(service, ws.live, assessment.id, [{ email: email('custom') }]);
      const candidateId = (await app.register({ invitationUrl: invited.body.data[0].invitationUrl })).body.data.candidateId;
      const completed = await app.complete(candidateId, assessment.id, custom.body.data.slug);
      expect(completed.status).toBe(201);
      expect(completed.body.data.assessmentCompleted).toBe(false);
      const results = await api(service, ws.live).get(`/v1/results?assessment=${assessment.id}`);
      expect(results.body.data[0]).toMatchObject({ testSlug: custom.body.data.slug, testName: 'Company values quiz', testType: 'custom' });
    });

    it('refuses bad custom tests and slugs that are not custom tests of the workspace', async () => {
      const ws = await app.workspace();
      const other = await app.workspace();
      for (const body of [{}, { name: '', minutes: 5, questionCount: 5 }, { name: 'a', minutes: 0, questionCount: 5 }, { name: 'a', minutes: 5, questionCount: 0 }, { name: 'a', minutes: '5', questionCount: 5 }, { name: 'a', minutes: 1.5, questionCount: 5 }]) {
        const answer = await app.call('POST', `/internal/workspaces/${ws.id}/custom-tests`, body);
        expect({ body, status: answer.status, code: answer.body?.error?.code }).toEqual({ body, status: 422, code: 'validation_failed' });
      }
      expectError(await app.call('POST', '/internal/workspaces/ws_unknown/custom-tests', { name: 'a', minutes: 5, questionCount: 5 }), 404, 'not_found');
      const foreign = (await app.call('POST', `/internal/workspaces/${other.id}/custom-tests`, { name: 'Theirs', minutes: 5, questionCount: 5 })).body.data;
      const mine = (await app.call('POST', `/internal/workspaces/${ws.id}/custom-tests`, { name: 'Mine', minutes: 5, questionCount: 5 })).body.data;
      const assessment = await createAssessment(service, ws.live, { tests: ['numerical-reasoning'] });
      for (const body of [{ slug: 'verbal-reasoning' }, { slug: 'no-such-test' }, { slug: foreign.slug }, {}, { slug: 5 }]) {
        const answer = await app.call('POST', `/internal/assessments/${assessment.id}/tests`, body);
        expect({ body, status: answer.status, code: answer.body?.error?.code }).toEqual({ body, status: 422, code: 'validation_failed' });
      }
      expectError(await app.call('POST', '/internal/assessments/asm_unknown/tests', { slug: mine.slug }), 404, 'not_found');
      expect((await app.call('POST', `/internal/assessments/${assessment.id}/tests`, { slug: mine.slug })).status).toBe(200);
      // Appending the same test twice is refused.
      expectError(await app.call('POST', `/internal/assessments/${assessment.id}/tests`, { slug: mine.slug }), 422, 'validation_failed');
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).body.data.tests.map((test: { slug: string }) => test.slug)).toEqual(['numerical-reasoning', mine.slug]);
      // Not on a closed assessment.
      const closed = await createAssessment(service, ws.live);
      await app.close(closed.id);
      expectError(await app.call('POST', `/internal/assessments/${closed.id}/tests`, { slug: mine.slug }), 409, 'invalid_state');
    });
  });

  describe('registrations', () => {
    it('201 then 200 with the same ids, through the personal link and the public link; candidateCount at once', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const address = email('register');
      const invited = await invite(service, ws.live, assessment.id, [{ email: address, firstName: 'Reg' }]);
      const first = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ data: { candidateId: expect.any(String), assessmentId: assessment.id } });
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(1);
      const again = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      // The same person through the public link: already registered.
      const viaPublic = await app.register({ inviteUrl: assessment.inviteUrl, email: address.toUpperCase() });
      expect(viaPublic.status).toBe(200);
      expect(viaPublic.body).toEqual(first.body);
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(1);

      // Open sign-up makes a new live candidate.
      const open = email('open');
      const signup = await app.register({ inviteUrl: assessment.inviteUrl, email: `  ${open.toUpperCase()} `, firstName: 'Open', surname: 'Signup' });
      expect(signup.status).toBe(201);
      expect(signup.body).toEqual({ data: { candidateId: expect.any(String), assessmentId: assessment.id } });
      expect(signup.body.data.candidateId).not.toBe(first.body.data.candidateId);
      const candidate = await api(service, ws.live).get(`/v1/candidates/${signup.body.data.candidateId}`);
      expect(candidate.body.data).toMatchObject({ email: open, firstName: 'Open', surname: 'Signup' });
      expect(candidate.body.data.assessments).toEqual([expect.objectContaining({ id: assessment.id, status: 'not_started', completedAt: null, results: [] })]);
      expect((await app.register({ inviteUrl: assessment.inviteUrl, email: open })).status).toBe(200);
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(2);

      // The same person on a second assessment of the workspace: a new registration, the same candidate.
      const second = await createAssessment(service, ws.live);
      const onSecond = await app.register({ inviteUrl: second.inviteUrl, email: address });
      expect(onSecond.status).toBe(201);
      expect(onSecond.body.data).toEqual({ candidateId: first.body.data.candidateId, assessmentId: second.id });
      expect((await api(service, ws.live).get(`/v1/candidates/${first.body.data.candidateId}`)).body.data.assessments.map((entry: { id: string }) => entry.id).sort())
        .toEqual([assessment.id, second.id].sort());
    });

    it('refuses bad registrations', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const invited = await invite(service, ws.live, assessment.id, [{ email: email('bad-reg') }]);
      const url: string = invited.body.data[0].invitationUrl;
      for (const body of [{}, { inviteUrl: assessment.inviteUrl }, { inviteUrl: assessment.inviteUrl, email: 'not-an-address' }, { inviteUrl: assessment.inviteUrl, email: 'ok@example.com', firstName: 5 },
        { inviteUrl: assessment.inviteUrl, email: 'ok@example.com', surname: 's'.repeat(256) }, { invitationUrl: 5 }, { invitationUrl: 'not a url' }, { inviteUrl: null, email: 'a@example.com' }]) {
        const answer = await app.register(body);
        expect({ body, status: answer.status, code: answer.body?.error?.code }).toEqual({ body, status: 422, code: 'validation_failed' });
      }
      const tampered = url.slice(0, -3) + (url.endsWith('aaa') ? 'bbb' : 'aaa');
      expectError(await app.register({ invitationUrl: tampered }), 404, 'not_found');
      expectError(await app.register({ invitationUrl: url.replace(assessment.id, 'asm_unknown') }), 404, 'not_found');
      expectError(await app.register({ inviteUrl: `${assessment.inviteUrl.slice(0, -3)}zzz`, email: 'a@example.com' }), 404, 'not_found');
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(0);
    });

    it('keeps live and test candidates apart (409 sandbox_candidate / live_candidate)', async () => {
      const ws = await app.workspace();
      const first = await createAssessment(service, ws.live);
      const second = await createAssessment(service, ws.live);
      // A test candidate signing up through the public link: 409 sandbox_candidate.
      const tester = email('tester');
      const testInvite = await invite(service, ws.sandbox, first.id, [{ email: tester }]);
      expect((await app.register({ invitationUrl: testInvite.body.data[0].invitationUrl })).status).toBe(201);
      expectError(await app.register({ inviteUrl: second.inviteUrl, email: tester }), 409, 'sandbox_candidate');

      // A pending sandbox invitation of an address that has since become a live candidate: 409 live_candidate.
      const person = email('person');
      const pendingSandbox = await invite(service, ws.sandbox, first.id, [{ email: person }]);
      expect((await app.register({ inviteUrl: second.inviteUrl, email: person })).status).toBe(201);
      expectError(await app.register({ invitationUrl: pendingSandbox.body.data[0].invitationUrl }), 409, 'live_candidate');

      // A pending live invitation of an address that has since become a test candidate: 409 sandbox_candidate.
      const other = email('other');
      const pendingLive = await invite(service, ws.live, first.id, [{ email: other }]);
      const sandboxOnSecond = await invite(service, ws.sandbox, second.id, [{ email: other }]);
      expect((await app.register({ invitationUrl: sandboxOnSecond.body.data[0].invitationUrl })).status).toBe(201);
      expectError(await app.register({ invitationUrl: pendingLive.body.data[0].invitationUrl }), 409, 'sandbox_candidate');
      expect((await api(service, ws.live).get(`/v1/assessments/${first.id}`)).body.data.candidateCount).toBe(0);
      expect((await api(service, ws.sandbox).get(`/v1/assessments/${first.id}`)).body.data.candidateCount).toBe(1);
    });

    it('on a closed assessment: a new registration is 409 invalid_state, registering again is 200', async () => {
      const { assessment, invitationUrl, candidateId, credential } = await registeredCandidate();
      const pending = await invite(service, credential, assessment.id, [{ email: email('pending') }]);
      await app.close(assessment.id);
      const again = await app.register({ invitationUrl });
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual({ candidateId, assessmentId: assessment.id });
      expectError(await app.register({ invitationUrl: pending.body.data[0].invitationUrl }), 409, 'invalid_state');
      expectError(await app.register({ inviteUrl: assessment.inviteUrl, email: email('late') }), 409, 'invalid_state');
      expect((await api(service, credential).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(1);
    });
  });

  describe('progress: start, complete', () => {
    it('start: 200 in_progress, again 200; visible at once; 404 and 409 invalid_state cases', async () => {
      const { assessment, candidateId, credential, ws } = await registeredCandidate();
      const started = await app.start(candidateId, assessment.id);
      expect(started.status).toBe(200);
      expect(started.body).toEqual({ data: { candidateId, assessmentId: assessment.id, status: 'in_progress' } });
      expect((await api(service, credential).get(`/v1/candidates/${candidateId}`)).body.data.assessments[0].status).toBe('in_progress');
      const again = await app.start(candidateId, assessment.id);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(started.body);
      const notRegistered = await createAssessment(service, credential);
      expectError(await app.start(candidateId, notRegistered.id), 409, 'invalid_state');
      expectError(await app.start('cand_unknown', assessment.id), 404, 'not_found');
      expectError(await app.start(candidateId, 'asm_unknown'), 404, 'not_found');
      const other = await app.workspace();
      const foreign = await createAssessment(service, other.live);
      // Another workspace's assessment is answered like one that does not exist.
      expectError(await app.start(candidateId, foreign.id), 404, 'not_found');
      // On a closed assessment: 409 invalid_state.
      const fresh = await registeredCandidate({ ws });
      await app.close(fresh.assessment.id);
      expectError(await app.start(fresh.candidateId, fresh.assessment.id), 409, 'invalid_state');
    });

    it('complete: 201 { resultId, assessmentCompleted } (true on the last test); twice 409 already_completed; locked result visible at once', async () => {
      const { assessment, candidateId, credential } = await registeredCandidate({ tests: ['numerical-reasoning', 'verbal-reasoning', 'big-five-personality'] });
      const first = await app.complete(candidateId, assessment.id, 'verbal-reasoning', SCORES);
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ data: { resultId: expect.any(String), assessmentCompleted: false } });
      // Finishing a test without an explicit start: in progress.
      const candidate = await api(service, credential).get(`/v1/candidates/${candidateId}`);
      expect(candidate.body.data.assessments[0]).toMatchObject({ status: 'in_progress', completedAt: null, unlocked: false });
      expect(candidate.body.data.assessments[0].results).toEqual([expect.objectContaining({ id: first.body.data.resultId, testSlug: 'verbal-reasoning', unlocked: false, unlockedAt: null, scorePercentage: null, questionsTotal: null })]);
      expectError(await app.complete(candidateId, assessment.id, 'verbal-reasoning', SCORES), 409, 'already_completed');
      expectError(await app.complete(candidateId, assessment.id, 'english-b2', SCORES), 409, 'invalid_state');
      const second = await app.complete(candidateId, assessment.id, 'numerical-reasoning', { ...SCORES, result: 'above average', scores: { numeracy: 7 } });
      expect(second.body).toEqual({ data: { resultId: expect.any(String), assessmentCompleted: false } });
      const last = await app.complete(candidateId, assessment.id, 'big-five-personality', { ...SCORES, result: null, scores: null });
      expect(last.status).toBe(201);
      expect(last.body).toEqual({ data: { resultId: expect.any(String), assessmentCompleted: true } });
      expect(new Set([first.body.data.resultId, second.body.data.resultId, last.body.data.resultId]).size).toBe(3);
      // At once: completed, in completions and results.
      const after = await api(service, credential).get(`/v1/candidates/${candidateId}`);
      expect(after.body.data.assessments[0]).toMatchObject({ status: 'completed', completedAt: expect.stringMatching(ISO_TIME) });
      const completions = await api(service, credential).get(`/v1/completions?assessment=${assessment.id}`);
      expect(completions.body.data.map((completion: { id: string }) => completion.id)).toEqual([`${candidateId}:${assessment.id}`]);
      const results = await api(service, credential).get(`/v1/results?assessment=${assessment.id}`);
      expect(results.body.data.map((result: { id: string }) => result.id)).toEqual([first.body.data.resultId, second.body.data.resultId, last.body.data.resultId]);
      expectError(await app.complete(candidateId, assessment.id, 'big-five-personality', SCORES), 409, 'already_completed');
    });

    it('complete: 409 invalid_state when not registered or closed; 404 for unknown ids; 422 for bad scores', async () => {
      const { assessment, candidateId, credential, ws } = await registeredCandidate();
      const notRegistered = await createAssessment(service, credential);
      expectError(await app.complete(candidateId, notRegistered.id, 'numerical-reasoning', SCORES), 409, 'invalid_state');
      expectError(await app.complete('cand_unknown', assessment.id, 'numerical-reasoning', SCORES), 404, 'not_found');
      expectError(await app.complete(candidateId, 'asm_unknown', 'numerical-reasoning', SCORES), 404, 'not_found');
      for (const scores of [
        { scorePercentage: 101 }, { scorePercentage: -1 }, { scorePercentage: '50' }, { scorePercentage: null }, { speedCompleted: 1.5 }, { questionsTotal: -1 },
        { questionsAnswered: 30, questionsTotal: 24 }, { questionsCorrect: 20, questionsIncorrect: 4, questionsAnswered: 20 }, { result: 5 }, { scores: [1] }, { scores: 'x' },
      ]) {
        const answer = await app.complete(candidateId, assessment.id, 'numerical-reasoning', { ...SCORES, ...scores });
        expect({ scores, status: answer.status, code: answer.body?.error?.code }).toEqual({ scores, status: 422, code: 'validation_failed' });
      }
      const missing = await app.call('POST', `/internal/candidates/${candidateId}/assessments/${assessment.id}/tests/numerical-reasoning/complete`, { scorePercentage: 50 });
      expectError(missing, 422, 'validation_failed');
      expect((await api(service, credential).get(`/v1/results?assessment=${assessment.id}`)).body.data).toEqual([]);
      // Started before closing, still refused once closed.
      const started = await registeredCandidate({ ws });
      await app.start(started.candidateId, started.assessment.id);
      await app.close(started.assessment.id);
      expectError(await app.complete(started.candidateId, started.assessment.id, 'numerical-reasoning', SCORES), 409, 'invalid_state');
    });
  });

  describe('unlock and billing', () => {
    it('unlock: 200 { resultId, unlockedAt, charged }; a second unlock answers the same unlockedAt and charged false', async () => {
      const ws = await app.workspace({ freeAllowance: 0 });
      const { assessment, candidateId } = await registeredCandidate({ ws, tests: ['numerical-reasoning', 'verbal-reasoning'] });
      const result = (await app.complete(candidateId, assessment.id, 'numerical-reasoning', SCORES)).body.data.resultId;
      const unlocked = await app.unlock(result);
      expect(unlocked.status).toBe(200);
      expect(unlocked.body).toEqual({ data: { resultId: result, unlockedAt: expect.stringMatching(ISO_TIME), charged: true } });
      const again = await app.unlock(result);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ data: { resultId: result, unlockedAt: unlocked.body.data.unlockedAt, charged: false } });
      // Visible at once, with the scores.
      const read = await api(service, ws.live).get(`/v1/candidates/${candidateId}`);
      expect(read.body.data.assessments[0].results[0]).toMatchObject({ id: result, unlocked: true, unlockedAt: unlocked.body.data.unlockedAt, ...SCORES, result: null, scores: null });
      // A second result of the same candidate: never charged again.
      const other = (await app.complete(candidateId, assessment.id, 'verbal-reasoning', SCORES)).body.data.resultId;
      expect((await app.unlock(other)).body.data.charged).toBe(false);
      const billing = await app.call('GET', `/internal/workspaces/${ws.id}/billing`);
      expect(billing.status).toBe(200);
      expect(billing.body).toEqual({ data: { freeAllowance: 0, billedCandidates: [{ candidateId, resultId: result, chargedAt: unlocked.body.data.unlockedAt }] } });
      expectError(await app.unlock('res_unknown'), 404, 'not_found');
      expectError(await app.call('GET', '/internal/workspaces/ws_unknown/billing'), 404, 'not_found');
    });

    it('bills a live candidate once, only after freeAllowance live candidates were unlocked; test candidates never', async () => {
      const ws = await app.workspace({ freeAllowance: 2 });
      const people = [];
      for (let index = 0; index < 4; index += 1) people.push(await registeredCandidate({ ws, tests: ['numerical-reasoning'] }));
      const sandboxPerson = await registeredCandidate({ ws, tests: ['numerical-reasoning'], mode: 'sandbox' });
      const resultOf = async (person: { candidateId: string; assessment: Record<string, any> }) => (await app.complete(person.candidateId, person.assessment.id, 'numerical-reasoning', SCORES)).body.data.resultId as string;
      // A test candidate first: not billed and not counted toward the allowance.
      const sandboxUnlock = await app.unlock(await resultOf(sandboxPerson));
      expect(sandboxUnlock.body.data.charged).toBe(false);
      const charged: boolean[] = [];
      const results: string[] = [];
      for (const person of people) {
        const result = await resultOf(person);
        results.push(result);
        charged.push((await app.unlock(result)).body.data.charged);
      }
      expect(charged).toEqual([false, false, true, true]);
      const billing = await app.call('GET', `/internal/workspaces/${ws.id}/billing`);
      expect(billing.body.data.freeAllowance).toBe(2);
      expect(billing.body.data.billedCandidates).toHaveLength(2);
      expect(billing.body.data.billedCandidates.map((row: { candidateId: string }) => row.candidateId).sort()).toEqual([people[2]?.candidateId, people[3]?.candidateId].sort());
      for (const row of billing.body.data.billedCandidates) {
        expect(row).toEqual({ candidateId: expect.any(String), resultId: expect.any(String), chargedAt: expect.stringMatching(ISO_TIME) });
        expect(results).toContain(row.resultId);
      }
      // A sandbox workspace with no allowance never bills test candidates.
      const sandboxOnly = await app.workspace({ freeAllowance: 0 });
      const tester = await registeredCandidate({ ws: sandboxOnly, mode: 'sandbox', tests: ['numerical-reasoning'] });
      expect((await app.unlock(await resultOf(tester))).body.data.charged).toBe(false);
      expect((await app.call('GET', `/internal/workspaces/${sandboxOnly.id}/billing`)).body).toEqual({ data: { freeAllowance: 0, billedCandidates: [] } });
    });
  });

  describe('deleting test candidates', () => {
    it('204 for a test candidate, gone from every read at once; 409 not_a_test_candidate for a live one; 404 unknown', async () => {
      const ws = await app.workspace();
      const tester = await registeredCandidate({ ws, mode: 'sandbox', tests: ['numerical-reasoning'] });
      await app.complete(tester.candidateId, tester.assessment.id, 'numerical-reasoning', SCORES);
      expect((await api(service, ws.sandbox).get(`/v1/assessments/${tester.assessment.id}`)).body.data.candidateCount).toBe(1);
      const deleted = await app.call('DELETE', `/internal/candidates/${tester.candidateId}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expectError(await api(service, ws.sandbox).get(`/v1/candidates/${tester.candidateId}`), 404, 'not_found');
      expect((await api(service, ws.sandbox).get('/v1/candidates')).body.data).toEqual([]);
      expect((await api(service, ws.sandbox).get('/v1/results')).body.data).toEqual([]);
      expect((await api(service, ws.sandbox).get('/v1/completions')).body.data).toEqual([]);
      expect((await api(service, ws.sandbox).get(`/v1/assessments/${tester.assessment.id}`)).body.data.candidateCount).toBe(0);
      // Their invitation link is gone too.
      expectError(await app.register({ invitationUrl: tester.invitationUrl }), 404, 'not_found');
      expectError(await app.call('DELETE', `/internal/candidates/${tester.candidateId}`), 404, 'not_found');
      expect((await stream(`candidate-${tester.candidateId}`)).at(-1)?.type).toBe('CandidateDeleted');

      const live = await registeredCandidate({ ws, tests: ['numerical-reasoning'] });
      expectError(await app.call('DELETE', `/internal/candidates/${live.candidateId}`), 409, 'not_a_test_candidate');
      expect((await api(service, ws.live).get(`/v1/candidates/${live.candidateId}`)).status).toBe(200);
      expectError(await app.call('DELETE', '/internal/candidates/cand_unknown'), 404, 'not_found');
    });
  });

  describe('e-mail outbox', () => {
    it('GET /internal/emails?to= lists the invitation e-mails of an address, newest first', async () => {
      const ws = await app.workspace();
      const first = await createAssessment(service, ws.live, { name: 'First mail' });
      const second = await createAssessment(service, ws.live, { name: 'Second mail' });
      const address = email('outbox');
      const one = await invite(service, ws.live, first.id, [{ email: address }]);
      const two = await invite(service, ws.live, second.id, [{ email: address }]);
      const mails = await app.call('GET', `/internal/emails?to=${encodeURIComponent(address.toUpperCase())}`);
      expect(mails.status).toBe(200);
      expect(mails.body.data).toHaveLength(2);
      for (const mail of mails.body.data) expect(mail).toEqual({ id: expect.any(String), to: address, subject: expect.any(String), text: expect.any(String), sentAt: expect.stringMatching(ISO_TIME) });
      expect(mails.body.data[0].text).toContain(two.body.data[0].invitationUrl);
      expect(mails.body.data[1].text).toContain(one.body.data[0].invitationUrl);
      expect((await app.call('GET', '/internal/emails?to=nobody@example.com')).body).toEqual({ data: [] });
    });
  });

  describe('audit streams', () => {
    it('records AssessmentCreated and CandidateInvited in assessment-{id} with the full metadata of the API request', async () => {
      const ws = await app.workspace();
      const created = await api(service, ws.live).post('/v1/assessments', { name: 'Audited', tests: ['numerical-reasoning'] }, { 'X-Correlation-Id': 'corr-create-1' });
      const assessmentId: string = created.body.data.id;
      const createRequestId = created.headers.get('x-request-id');
      // None was sent: the service made one.
      expect(createRequestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const invited = await api(service, ws.sandbox).post(`/v1/assessments/${assessmentId}/invitations`, { candidates: [{ email: 'audit.one@example.com' }, { email: 'audit.two@example.com' }] }, { 'X-Request-Id': 'req-invite-123' });
      expect(invited.headers.get('x-request-id')).toBe('req-invite-123');
      const events = await stream(`assessment-${assessmentId}`);
      expect(events.map((event) => event.type)).toEqual(['AssessmentCreated', 'CandidateInvited', 'CandidateInvited']);
      expect(events.map((event) => event.revision)).toEqual([0, 1, 2]);
      for (const event of events) {
        expect(Object.keys(event).sort()).toEqual(['data', 'id', 'metadata', 'position', 'recordedAt', 'revision', 'streamId', 'type']);
        expect(event.streamId).toBe(`assessment-${assessmentId}`);
        expect(event.position).toMatch(/^(0|[1-9]\d*)$/);
        expect(typeof event.id).toBe('string');
        expect(Object.keys(event.metadata).sort()).toEqual(['actor', 'causationId', 'correlationId', 'requestId', 'time']);
        expect(event.metadata.time).toMatch(ISO_TIME);
      }
      const positions = events.map((event) => BigInt(event.position));
      expect(positions[1]! > positions[0]! && positions[2]! > positions[1]!).toBe(true);
      expect(events[0]?.metadata).toEqual({ correlationId: 'corr-create-1', causationId: null, actor: ws.liveKey.id, requestId: createRequestId, time: created.body.data.createdAt });
      expect(events[0]?.data).toMatchObject({ assessmentId, workspaceId: ws.id, name: 'Audited', deadline: null, tests: [{ slug: 'numerical-reasoning', name: expect.any(String), type: 'library' }] });
      expect(events[1]?.metadata).toEqual({ correlationId: 'req-invite-123', causationId: null, actor: ws.sandboxKey.id, requestId: 'req-invite-123', time: expect.stringMatching(ISO_TIME) });
      expect(events[1]?.data).toMatchObject({ assessmentId, email: 'audit.one@example.com', mode: 'sandbox' });
      expect(events[2]?.data).toMatchObject({ email: 'audit.two@example.com' });
      // The sandbox places used are recorded on the workspace stream, in the same request.
      const workspaceEvents = await stream(`workspace-${ws.id}`);
      const used = workspaceEvents.filter((event) => event.type === 'SandboxPlacesUsed');
      expect(used).toHaveLength(1);
      expect(used[0]?.data).toMatchObject({ places: 2, assessmentId });
      expect(used[0]?.metadata.requestId).toBe('req-invite-123');
      // Written at its schema version 2 (libs/domain/src/shared/event-schema.ts), which it records.
      expect(used[0]?.metadata.schemaVersion).toBe(2);
      expect(workspaceEvents.map((event) => event.revision)).toEqual(workspaceEvents.map((_, index) => index));
    });

    it('records CandidateRegistered, TestCompleted and ResultUnlocked in candidate-{id} with actor internal', async () => {
      const { assessment, candidateId } = await registeredCandidate({ tests: ['numerical-reasoning'] });
      const completed = await app.call('POST', `/internal/candidates/${candidateId}/assessments/${assessment.id}/tests/numerical-reasoning/complete`, SCORES);
      const resultId = completed.body.data.resultId;
      const unlocked = await request(`${service.internalUrl}/internal/results/${resultId}/unlock`, {
        method: 'POST', headers: { authorization: `Bearer ${service.internalToken}`, 'x-correlation-id': 'corr-unlock-7' },
      });
      expect(unlocked.status).toBe(200);
      const events = await stream(`candidate-${candidateId}`);
      const types = events.map((event) => event.type);
      expect(types).toEqual(['CandidateCreated', 'CandidateRegistered', 'AssessmentStarted', 'TestCompleted', 'AssessmentCompleted', 'ResultUnlocked']);
      expect(events.map((event) => event.revision)).toEqual([0, 1, 2, 3, 4, 5]);
      for (let index = 1; index < events.length; index += 1) expect(BigInt(events[index]!.position) > BigInt(events[index - 1]!.position)).toBe(true);
      for (const event of events) {
        expect(event.streamId).toBe(`candidate-${candidateId}`);
        expect(event.metadata).toEqual({ correlationId: expect.any(String), causationId: null, actor: 'internal', requestId: expect.any(String), time: expect.stringMatching(ISO_TIME) });
      }
      const registered = events.find((event) => event.type === 'CandidateRegistered');
      expect(registered?.data).toMatchObject({ candidateId, assessmentId: assessment.id });
      const testCompleted = events.find((event) => event.type === 'TestCompleted');
      expect(testCompleted?.data).toMatchObject({ candidateId, assessmentId: assessment.id, resultId });
      expect(testCompleted?.metadata.requestId).toBe(completed.headers.get('x-request-id'));
      const resultUnlocked = events.find((event) => event.type === 'ResultUnlocked');
      expect(resultUnlocked?.data).toMatchObject({ resultId, unlockedAt: unlocked.body.data.unlockedAt });
      expect(resultUnlocked?.metadata).toMatchObject({ correlationId: 'corr-unlock-7', requestId: unlocked.headers.get('x-request-id'), time: unlocked.body.data.unlockedAt });
      // The registration is recorded on the assessment too, atomically with the candidate.
      const assessmentEvents = await stream(`assessment-${assessment.id}`);
      const added = assessmentEvents.find((event) => event.type === 'AssessmentCandidateAdded');
      expect(added?.metadata.requestId).toBe(registered?.metadata.requestId);
    });

    it('answers 404 not_found for a stream with no events', async () => {
      expectError(await app.call('GET', '/internal/streams/assessment-asm_never'), 404, 'not_found');
      expectError(await app.call('GET', '/internal/streams/nothing'), 404, 'not_found');
    });
  });

  describe('read-your-writes', () => {
    it('every write shows in an immediate public read, again and again', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live, { tests: ['numerical-reasoning'] });
      const client = api(service, ws.live);
      for (let index = 0; index < 8; index += 1) {
        const address = email(`ryw${index}`);
        const invited = await invite(service, ws.live, assessment.id, [{ email: address }]);
        const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
        const count = (await client.get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount;
        expect({ index, count }).toEqual({ index, count: index + 1 });
        const candidateId = registered.body.data.candidateId;
        expect((await client.get(`/v1/candidates/${candidateId}`)).status).toBe(200);
        await app.start(candidateId, assessment.id);
        expect((await client.get(`/v1/candidates/${candidateId}`)).body.data.assessments[0].status).toBe('in_progress');
        const resultId = (await app.complete(candidateId, assessment.id, 'numerical-reasoning', SCORES)).body.data.resultId;
        expect((await client.get(`/v1/candidates/${candidateId}`)).body.data.assessments[0].status).toBe('completed');
        expect((await client.get(`/v1/completions?assessment=${assessment.id}`)).body.data).toHaveLength(index + 1);
        await app.unlock(resultId);
        const unlocked = (await client.get(`/v1/results?assessment=${assessment.id}&order=desc&limit=1`)).body.data[0];
        expect(unlocked).toMatchObject({ id: resultId, unlocked: true, scorePercentage: SCORES.scorePercentage });
      }
      const created = await client.post('/v1/assessments', { name: 'Immediate', tests: ['english-b2'] });
      expect((await api(service, ws.sandbox).get('/v1/assessments?limit=1')).body.data[0].id).toBe(created.body.data.id);
      await app.close(created.body.data.id);
      expect((await client.get(`/v1/assessments/${created.body.data.id}`)).body.data.status).toBe('archived');
    });
  });

  describe('simulated clock (SIMULATED_CLOCK=true)', () => {
    it('POST /internal/clock: 200 { now }, moves forward, refuses bad values with 422 validation_failed', async () => {
      const ws = await app.workspace();
      const before = Date.parse((await createAssessment(service, ws.live)).createdAt);
      const moved = await app.call('POST', '/internal/clock', { advanceSeconds: 3600 });
      expect(moved.status).toBe(200);
      expect(moved.body).toEqual({ data: { now: expect.stringMatching(ISO_TIME) } });
      expect(Date.parse(moved.body.data.now) - before).toBeGreaterThanOrEqual(3600_000);
      const after = Date.parse((await createAssessment(service, ws.live)).createdAt);
      expect(after).toBeGreaterThanOrEqual(Date.parse(moved.body.data.now));
      for (const advanceSeconds of [0, -5, 1.5, '60', null, 315_360_001, [60]]) {
        const answer = await app.call('POST', '/internal/clock', { advanceSeconds });
        expect({ advanceSeconds, status: answer.status, code: answer.body?.error?.code }).toEqual({ advanceSeconds, status: 422, code: 'validation_failed' });
      }
      expectError(await app.call('POST', '/internal/clock', {}), 422, 'validation_failed');
    });

    it('past the deadline: nobody new registers or starts (409 invalid_state); a started candidate may finish; registering again is 200', async () => {
      const ws = await app.workspace();
      const today = await domainToday(service, ws.live);
      const assessment = await createAssessment(service, ws.live, { deadline: today, tests: ['numerical-reasoning', 'verbal-reasoning'] });
      const invited = await invite(service, ws.live, assessment.id, [{ email: email('started') }, { email: email('registered') }, { email: email('pending') }]);
      const [started, registered] = [
        (await app.register({ invitationUrl: invited.body.data[0].invitationUrl })).body.data.candidateId,
        (await app.register({ invitationUrl: invited.body.data[1].invitationUrl })).body.data.candidateId,
      ];
      expect((await app.start(started, assessment.id)).status).toBe(200);
      const now = (await createAssessment(service, ws.live)).createdAt as string;
      const seconds = Math.ceil((Date.parse(`${addDays(today, 1)}T00:00:00.000Z`) - Date.parse(now)) / 1000) + 10;
      expect((await app.call('POST', '/internal/clock', { advanceSeconds: seconds })).status).toBe(200);

      expectError(await app.register({ invitationUrl: invited.body.data[2].invitationUrl }), 409, 'invalid_state');
      expectError(await app.register({ inviteUrl: assessment.inviteUrl, email: email('late') }), 409, 'invalid_state');
      expect((await app.register({ invitationUrl: invited.body.data[1].invitationUrl })).status).toBe(200);
      expectError(await app.start(registered, assessment.id), 409, 'invalid_state');
      expectError(await app.complete(registered, assessment.id, 'numerical-reasoning', SCORES), 409, 'invalid_state');
      const finished = await app.complete(started, assessment.id, 'numerical-reasoning', SCORES);
      expect(finished.status).toBe(201);
      expect((await app.complete(started, assessment.id, 'verbal-reasoning', SCORES)).body.data.assessmentCompleted).toBe(true);
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).body.data).toMatchObject({ status: 'active', candidateCount: 2 });
    });
  });

  describe('order of refusals: an unknown id before a bad body, the checks in the order they always ran', () => {
    const refusal = (answer: { status: number; body: any }) => ({ status: answer.status, body: answer.body });
    const error = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
    const notFound = (what: string) => error(404, 'not_found', `${what} not found`);
    const invalid = (message: string) => error(422, 'validation_failed', message);

    it('answers 404 for an unknown workspace or assessment before judging the body; 400 invalid_json before both', async () => {
      expect(refusal(await app.call('POST', '/internal/workspaces/ws_unknown/api-keys', { mode: 'test' }))).toEqual(notFound('workspace'));
      expect(refusal(await app.call('POST', '/internal/workspaces/ws_unknown/api-keys'))).toEqual(notFound('workspace'));
      expect(refusal(await app.call('POST', '/internal/workspaces/ws_unknown/custom-tests', { name: '', minutes: 0 }))).toEqual(notFound('workspace'));
      expect(refusal(await app.call('PUT', '/internal/workspaces/ws_unknown/webhook', { url: 'ftp://hooks.example.com/in', events: [] }))).toEqual(notFound('workspace'));
      expect(refusal(await app.call('POST', '/internal/assessments/asm_unknown/tests', { slug: 5 }))).toEqual(notFound('assessment'));
      const raw = await request(`${service.internalUrl}/internal/workspaces/ws_unknown/custom-tests`, {
        method: 'POST', headers: { authorization: `Bearer ${service.internalToken}`, 'content-type': 'application/json' }, raw: '[1]',
      });
      expect(refusal(raw)).toEqual(error(400, 'invalid_json', 'The request body is not a JSON object.'));
      // Known ids: the body's rules, in their order.
      const ws = await app.workspace();
      expect(refusal(await app.call('POST', `/internal/workspaces/${ws.id}/api-keys`, { mode: 'test' }))).toEqual(invalid('mode must be "live" or "sandbox"'));
      expect(refusal(await app.call('POST', `/internal/workspaces/${ws.id}/custom-tests`, { name: '', minutes: 0 }))).toEqual(invalid('name must be a string of 1 to 200 characters'));
    });

    it('judges what a webhook address resolves to first, then the workspace, then the body\'s rules', async () => {
      const ws = await app.workspace();
      const publicHost = invalid('url must point at a public host');
      expect(refusal(await app.call('PUT', '/internal/workspaces/ws_unknown/webhook', { url: 'https://10.1.2.3/in', events: ['testCompleted'] }))).toEqual(publicHost);
      expect(refusal(await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: 'http://10.1.2.3/in', events: ['testCompleted'] }))).toEqual(publicHost);
      expect(refusal(await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: 'https://user:pw@127.0.0.1/in', events: [] }))).toEqual(publicHost);
      expect(refusal(await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: 'ftp://hooks.example.com/in', events: [] }))).toEqual(invalid('url must be an absolute https:// URL'));
    });

    it('finishing a test: an unknown candidate, then an unknown assessment, before the scores', async () => {
      const { assessment, candidateId } = await registeredCandidate();
      const complete = (candidate: string, assessmentId: string) =>
        app.call('POST', `/internal/candidates/${candidate}/assessments/${assessmentId}/tests/numerical-reasoning/complete`, { scorePercentage: 101 });
      expect(refusal(await complete('cand_unknown', 'asm_unknown'))).toEqual(notFound('candidate'));
      expect(refusal(await complete('cand_unknown', assessment.id))).toEqual(notFound('candidate'));
      expect(refusal(await complete(candidateId, 'asm_unknown'))).toEqual(notFound('assessment'));
      const other = await createAssessment(service, (await app.workspace()).live);
      expect(refusal(await complete(candidateId, other.id))).toEqual(notFound('assessment'));
      expect(refusal(await complete(candidateId, assessment.id))).toEqual(invalid('scorePercentage must be a number from 0 to 100'));
    });

    it('a sign-up: the link\'s shape, then whether the service issued it for a known assessment, then the person', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const inviteUrl: string = assessment.inviteUrl;
      const person = { email: 'not-an-address', firstName: 5 };
      expect(refusal(await app.register({ inviteUrl: inviteUrl.replace(assessment.id, 'asm_unknown'), ...person }))).toEqual(notFound('assessment'));
      expect(refusal(await app.register({ inviteUrl: `${inviteUrl.slice(0, -3)}zzz`, ...person }))).toEqual(notFound('invite link'));
      expect(refusal(await app.register({ inviteUrl: 'https://elsewhere.example.com/join/a/b', ...person }))).toEqual(notFound('invite link'));
      expect(refusal(await app.register({ inviteUrl: 'not a url', ...person }))).toEqual(invalid('inviteUrl is not a URL'));
      expect(refusal(await app.register({ inviteUrl, ...person }))).toEqual(invalid('email must be a valid e-mail address'));
      expect(refusal(await app.register({ inviteUrl, email: 'ok@example.com', firstName: 5 }))).toEqual(invalid('firstName and surname must be strings of at most 255 characters'));
    });

    it('a workspace body wrong in both fields names the allowance', async () => {
      expect(refusal(await app.call('POST', '/internal/workspaces', { name: '', freeAllowance: -1 }))).toEqual(invalid('freeAllowance must be a whole number from 0'));
      expect(refusal(await app.call('POST', '/internal/workspaces', { name: '', freeAllowance: 2 }))).toEqual(invalid('name must be a string of 1 to 200 characters'));
    });
  });
});
