import { jest } from '@jest/globals';
import { api, internal, request } from './support/client.js';
import { type Workspace, basic, createAssessment, expectError, expectRateLimitHeaders } from './support/core-helpers.js';
import { type RunningService, startService } from './support/service.js';

// Many requests per test on a shared, often loaded machine: the 5 s default is too tight.
jest.setTimeout(30_000);

const TYPES = ['aptitude', 'personality', 'soft-skills', 'software', 'programming', 'typing', 'language', 'role-specific'];
const FORMATS = ['multiple-choice', 'code', 'essay', 'video', 'typing'];

describe('public API basics: authentication, base paths, rate limit, me, tests', () => {
  let service: RunningService;
  let app: ReturnType<typeof internal>;
  let ws: Workspace;

  beforeAll(async () => {
    service = await startService();
    app = internal(service);
    ws = await app.workspace({ name: 'Basics Ltd' });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  const get = (path: string, authorization?: string) =>
    request(`${service.baseUrl}${path}`, { headers: authorization === undefined ? {} : { authorization } });

  describe('authentication', () => {
    it('accepts Bearer key:secret', async () => {
      const answer = await get('/v1/me', `Bearer ${ws.live}`);
      expect(answer.status).toBe(200);
      expect(answer.body.data.workspace.id).toBe(ws.id);
    });

    it('accepts Basic base64(key:secret)', async () => {
      const answer = await get('/v1/me', basic(ws.live));
      expect(answer.status).toBe(200);
      expect(answer.body.data.workspace.id).toBe(ws.id);
      expect(answer.body.data.mode).toBe('live');
      const sandbox = await get('/v1/me', basic(ws.sandbox));
      expect(sandbox.status).toBe(200);
      expect(sandbox.body.data.mode).toBe('sandbox');
    });

    it('answers 401 unauthorized in the error shape for a missing credential', async () => {
      expectError(await get('/v1/me'), 401, 'unauthorized');
      expectError(await get('/v1/tests'), 401, 'unauthorized');
      expectError(await request(`${service.baseUrl}/v1/assessments`, { method: 'POST', body: { name: 'x', tests: ['numerical-reasoning'] } }), 401, 'unauthorized');
    });

    it.each([
      ['an empty header', () => ''],
      ['the scheme alone', () => 'Bearer'],
      ['a key without secret', () => `Bearer ${ws.liveKey.key}`],
      ['a key with an empty secret', () => `Bearer ${ws.liveKey.key}:`],
      ['an empty key', () => `Bearer :${ws.liveKey.secret}`],
      ['an unknown scheme', () => `Token ${ws.live}`],
      ['extra parts', () => `Bearer ${ws.live} extra`],
      ['Basic with bad base64', () => 'Basic !!!not-base64!!!'],
      ['Basic without a colon', () => `Basic ${Buffer.from(ws.liveKey.key).toString('base64')}`],
      ['Basic with the plain credential', () => `Basic ${ws.live}`],
    ])('answers 401 unauthorized for a malformed credential: %s', async (_label, header) => {
      expectError(await get('/v1/me', header()), 401, 'unauthorized');
    });

    it('answers 401 unauthorized for a wrong secret, an unknown key, and crossed key and secret', async () => {
      expectError(await get('/v1/me', `Bearer ${ws.liveKey.key}:wrong-secret`), 401, 'unauthorized');
      expectError(await get('/v1/me', basic(`${ws.liveKey.key}:wrong-secret`)), 401, 'unauthorized');
      expectError(await get('/v1/me', `Bearer live_unknownkeyunknownkey1234:${ws.liveKey.secret}`), 401, 'unauthorized');
      expectError(await get('/v1/me', `Bearer ${ws.sandboxKey.key}:${ws.liveKey.secret}`), 401, 'unauthorized');
    });

    it('refuses the old key at once after regeneration and accepts the new one', async () => {
      const own = await app.workspace({ name: 'Regenerate' });
      expect((await get('/v1/me', `Bearer ${own.live}`)).status).toBe(200);
      const regenerated = await app.call('POST', `/internal/api-keys/${own.liveKey.id}/regenerate`);
      expect(regenerated.status).toBe(200);
      expect(regenerated.body).toEqual({ data: { id: own.liveKey.id, key: expect.any(String), secret: expect.any(String), mode: 'live' } });
      expect(regenerated.body.data.key).not.toBe(own.liveKey.key);
      expect(regenerated.body.data.secret).not.toBe(own.liveKey.secret);
      expectError(await get('/v1/me', `Bearer ${own.live}`), 401, 'unauthorized');
      expectError(await get('/v1/me', basic(own.live)), 401, 'unauthorized');
      // The old key with the new secret is not a credential either.
      expectError(await get('/v1/me', `Bearer ${own.liveKey.key}:${regenerated.body.data.secret}`), 401, 'unauthorized');
      const fresh = `${regenerated.body.data.key}:${regenerated.body.data.secret}`;
      const me = await get('/v1/me', `Bearer ${fresh}`);
      expect(me.status).toBe(200);
      expect(me.body.data).toEqual({ workspace: { id: own.id, name: 'Regenerate' }, mode: 'live', sandbox: { limit: 25, windowDays: 30, remaining: 25 } });
      // The other key of the workspace is untouched.
      expect((await get('/v1/me', `Bearer ${own.sandbox}`)).status).toBe(200);
    });
  });

  describe('unknown paths and the second base address', () => {
    it.each([
      ['/v1/nothing-here'], ['/nothing'], ['/v2/me'], ['/api/v1/nothing-here'], ['/v1/me/extra'], ['/v1/assessments/x/y/z'], ['/api'], ['/'],
    ])('answers 404 not_found in the error shape at %s', async (path) => {
      expectError(await get(path, `Bearer ${ws.live}`), 404, 'not_found');
      expectError(await get(path), 404, 'not_found');
    });

    it('answers 404 not_found for a method no endpoint serves', async () => {
      expectError(await request(`${service.baseUrl}/v1/me`, { method: 'DELETE', headers: { authorization: `Bearer ${ws.live}` } }), 404, 'not_found');
      expectError(await request(`${service.baseUrl}/v1/tests`, { method: 'POST', headers: { authorization: `Bearer ${ws.live}` }, body: {} }), 404, 'not_found');
    });

    it('serves every public path under /api as well, with the same answers', async () => {
      const own = await app.workspace({ name: 'Alt base' });
      const direct = api(service, own.live);
      const alt = api(service, own.live, '/api');
      const created = await alt.post('/v1/assessments', { name: 'Created under /api', tests: ['numerical-reasoning'] });
      expect(created.status).toBe(201);
      const assessmentId: string = created.body.data.id;
      const invited = await alt.post(`/v1/assessments/${assessmentId}/invitations`, { candidates: [{ email: 'alt.base@example.com' }] });
      expect(invited.status).toBe(200);
      expect(invited.body.meta).toEqual({ assessmentId, invited: 1, alreadyInvited: 0, failed: 0 });
      const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
      expect(registered.status).toBe(201);
      const candidateId: string = registered.body.data.candidateId;

      for (const path of [
        '/v1/me', '/v1/tests', '/v1/tests?type=typing', '/v1/assessments', `/v1/assessments/${assessmentId}`, '/v1/candidates',
        `/v1/candidates/${candidateId}`, '/v1/completions', '/v1/results',
      ]) {
        const [one, two] = [await direct.get(path), await alt.get(path)];
        expect({ path, status: two.status }).toEqual({ path, status: 200 });
        expect(two.body).toEqual(one.body);
        expectRateLimitHeaders(two);
      }
      const legacy = await alt.get('/candidates');
      expect(legacy.status).toBe(200);
      expect(legacy.body).toEqual((await direct.get('/candidates')).body);
      expect(legacy.body.count).toBe(1);
      expectError(await request(`${service.baseUrl}/api/v1/me`), 401, 'unauthorized');
    });
  });

  describe('rate limit', () => {
    it('counts every authenticated request of a key; the 121st in a minute is 429 rate_limited; failed authentication uses no place', async () => {
      const own = await app.workspace({ name: 'Rate limited' });
      // Failed authentication with the right key and a wrong secret uses no place.
      for (let index = 0; index < 5; index += 1) expectError(await get('/v1/me', `Bearer ${own.liveKey.key}:nope`), 401, 'unauthorized');
      const client = api(service, own.live);
      for (let index = 0; index < 120; index += 1) {
        // Mix endpoints and outcomes (200, 400, 404 for an unknown id): every authenticated answer counts and carries the headers.
        const path = index % 3 === 0 ? '/v1/me' : index % 3 === 1 ? '/v1/assessments?limit=0' : '/v1/assessments/unknown-id';
        const answer = await client.get(path);
        expect({ index, limit: answer.headers.get('x-ratelimit-limit'), remaining: answer.headers.get('x-ratelimit-remaining') })
          .toEqual({ index, limit: '120', remaining: String(119 - index) });
        expect([200, 400, 404]).toContain(answer.status);
      }
      const refused = await client.get('/v1/me');
      expectError(refused, 429, 'rate_limited');
      expect(refused.headers.get('x-ratelimit-limit')).toBe('120');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      const retryAfter = refused.headers.get('retry-after');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      // Under /api and with the Basic form it is the same key, so the same window.
      expectError(await api(service, own.live, '/api').get('/v1/tests'), 429, 'rate_limited');
      expectError(await get('/v1/me', basic(own.live)), 429, 'rate_limited');
      // A 429 on a write does not run it.
      const write = await client.post('/v1/assessments', { name: 'never', tests: ['numerical-reasoning'] });
      expectError(write, 429, 'rate_limited');
      // A wrong credential is still 401, not 429.
      expectError(await get('/v1/me', `Bearer ${own.liveKey.key}:nope`), 401, 'unauthorized');
      // The limit is per API key: the workspace's sandbox key starts fresh.
      const sandbox = await api(service, own.sandbox).get('/v1/assessments');
      expect(sandbox.status).toBe(200);
      expect(sandbox.body.data).toEqual([]);
      expect(sandbox.headers.get('x-ratelimit-remaining')).toBe('119');
    });

    it('puts the headers on every kind of authenticated answer, errors included', async () => {
      const own = await app.workspace({ name: 'Headers' });
      const client = api(service, own.live);
      const first = await client.get('/v1/me');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('119');
      const answers = [
        await client.post('/v1/assessments', { name: 'H', tests: ['numerical-reasoning'] }),
        await client.get('/v1/assessments?limit=abc'),
        await client.get('/v1/assessments/does-not-exist'),
        await client.post('/v1/assessments', { name: '', tests: ['numerical-reasoning'] }),
        await client.raw('/v1/assessments', { method: 'POST', raw: '{not json' }),
        await client.get('/v1/tests?type=unknown'),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([201, 400, 404, 422, 400, 400]);
      answers.forEach((answer, index) => {
        expect(answer.headers.get('x-ratelimit-limit')).toBe('120');
        expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(118 - index));
      });
    });
  });

  describe('the simulated clock is off by default', () => {
    it('POST /internal/clock answers 404 not_found without SIMULATED_CLOCK=true, and time does not move', async () => {
      const answer = await app.call('POST', '/internal/clock', { advanceSeconds: 86_400 });
      expectError(answer, 404, 'not_found');
      expectError(await app.call('POST', '/internal/clock', { advanceSeconds: 0 }), 404, 'not_found');
      const created = await createAssessment(service, ws.sandbox, { name: 'Real time' });
      expect(Math.abs(Date.parse(created.createdAt) - Date.now())).toBeLessThan(60_000);
      // Still behind the internal token.
      expectError(await request(`${service.internalUrl}/internal/clock`, { method: 'POST', body: { advanceSeconds: 1 } }), 401, 'unauthorized');
    });
  });

  describe('GET /v1/me', () => {
    it('answers the workspace, the mode and the sandbox allowance for live and sandbox keys', async () => {
      const live = await api(service, ws.live).get('/v1/me');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ data: { workspace: { id: ws.id, name: 'Basics Ltd' }, mode: 'live', sandbox: { limit: 25, windowDays: 30, remaining: 25 } } });
      expectRateLimitHeaders(live);
      const sandbox = await api(service, ws.sandbox).get('/v1/me');
      expect(sandbox.status).toBe(200);
      expect(sandbox.body).toEqual({ data: { workspace: { id: ws.id, name: 'Basics Ltd' }, mode: 'sandbox', sandbox: { limit: 25, windowDays: 30, remaining: 25 } } });
    });

    it('shows the workspace of the key, never another', async () => {
      const other = await app.workspace({ name: 'Other Co' });
      const answer = await api(service, other.sandbox).get('/v1/me');
      expect(answer.body.data.workspace).toEqual({ id: other.id, name: 'Other Co' });
      expect(other.id).not.toBe(ws.id);
    });
  });

  describe('GET /v1/tests', () => {
    it('lists at least 40 tests with every field, covering every type, and meta.total', async () => {
      const answer = await api(service, ws.live).get('/v1/tests');
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['data', 'meta']);
      const tests: Record<string, unknown>[] = answer.body.data;
      expect(tests.length).toBeGreaterThanOrEqual(40);
      expect(answer.body.meta).toEqual({ total: tests.length });
      for (const test of tests) {
        expect(Object.keys(test).sort()).toEqual(['description', 'format', 'minutes', 'name', 'questionCount', 'slug', 'timed', 'type']);
        expect(test).toEqual({
          slug: expect.stringMatching(/^[a-z0-9-]+$/),
          name: expect.any(String),
          type: expect.any(String),
          format: expect.any(String),
          minutes: expect.any(Number),
          timed: expect.any(Boolean),
          questionCount: expect.any(Number),
          description: expect.any(String),
        });
        expect(TYPES).toContain(test.type);
        expect(FORMATS).toContain(test.format);
        expect(Number.isInteger(test.minutes) && (test.minutes as number) > 0).toBe(true);
        expect(Number.isInteger(test.questionCount) && (test.questionCount as number) > 0).toBe(true);
        expect((test.name as string).length).toBeGreaterThan(0);
        expect((test.description as string).length).toBeGreaterThan(0);
      }
      expect(new Set(tests.map((test) => test.slug)).size).toBe(tests.length);
      for (const type of TYPES) expect(tests.some((test) => test.type === type)).toBe(true);
    });

    it.each(TYPES)('filters by type=%s', async (type) => {
      const all = (await api(service, ws.live).get('/v1/tests')).body.data as { type: string }[];
      const answer = await api(service, ws.live).get(`/v1/tests?type=${type}`);
      expect(answer.status).toBe(200);
      const expected = all.filter((test) => test.type === type);
      expect(expected.length).toBeGreaterThan(0);
      expect(answer.body).toEqual({ data: expected, meta: { total: expected.length } });
    });

    it.each([['unknown'], ['APTITUDE'], [''], ['aptitude%20'], ['custom'], ['library']])('refuses type=%s with 400 invalid_parameter', async (type) => {
      const answer = await api(service, ws.live).get(`/v1/tests?type=${type}`);
      expectError(answer, 400, 'invalid_parameter');
      expectRateLimitHeaders(answer);
    });

    it('gives the same list to every workspace and both modes, and ignores unknown parameters', async () => {
      const other = await app.workspace({ name: 'Second workspace' });
      await createAssessment(service, other.live);
      const mine = await api(service, ws.live).get('/v1/tests');
      expect((await api(service, other.live).get('/v1/tests')).body).toEqual(mine.body);
      expect((await api(service, other.sandbox).get('/v1/tests')).body).toEqual(mine.body);
      expect((await api(service, ws.live).get('/v1/tests?foo=bar&limit=1')).body).toEqual(mine.body);
      expect(mine.body.meta).toEqual({ total: mine.body.data.length });
      expect(mine.body.meta).not.toHaveProperty('nextCursor');
    });
  });
});
