import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { jest } from '@jest/globals';
import { type HttpAnswer, api, internal, request } from './support/client.js';
import { type Workspace, createAssessment, email, expectError, invite, rawPost } from './support/core-helpers.js';
import { rawHttp } from './support/core-raw-http.js';
import { type RunningService, startService } from './support/service.js';

// Many requests per test on a shared, often loaded machine: the 5 s default is too tight.
jest.setTimeout(30_000);

const SCORES = { scorePercentage: 60, speedCompleted: 100, questionsAnswered: 10, questionsCorrect: 6, questionsIncorrect: 4, questionsTotal: 10 };

/** Never a 5xx; an error is always in the documented shape, without internals. */
const expectHandled = (answer: HttpAnswer, label: unknown): void => {
  expect({ label, status: answer.status < 500 ? 'handled' : `${answer.status} ${answer.text.slice(0, 200)}` }).toEqual({ label, status: 'handled' });
  if (answer.status >= 400) {
    expect({ label, body: answer.body }).toEqual({ label, body: { error: { code: expect.any(String), message: expect.any(String) } } });
  }
  expect(answer.text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\/work\/|Error: /);
};

describe('robustness: no hostile input gets a 5xx', () => {
  let service: RunningService;
  let app: ReturnType<typeof internal>;
  let ws: Workspace;
  let assessment: Record<string, any>;
  let candidateId: string;


  /** Fresh live credentials, so that hundreds of requests stay under the rate limit of each key. */
  let keyUses = 0;
  let currentKey = '';
  const liveKey = async (): Promise<string> => {
    if (!currentKey || keyUses >= 100) {
      const issued = (await app.call('POST', `/internal/workspaces/${ws.id}/api-keys`, { mode: 'live' })).body.data;
      currentKey = `${issued.key}:${issued.secret}`;
      keyUses = 0;
    }
    keyUses += 1;
    return currentKey;
  };

  beforeAll(async () => {
    service = await startService();
    app = internal(service);
    ws = await app.workspace({ name: 'Robust' });
    assessment = await createAssessment(service, ws.live, { tests: ['numerical-reasoning', 'verbal-reasoning'] });
    const invited = await invite(service, ws.live, assessment.id, [{ email: 'robust.one@example.com', firstName: 'Rob' }]);
    candidateId = (await app.register({ invitationUrl: invited.body.data[0].invitationUrl })).body.data.candidateId;
    expect((await app.complete(candidateId, assessment.id, 'numerical-reasoning', SCORES)).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
  });

  describe('no input gets a 5xx', () => {
    const writeRoutes = (): { label: string; url: string; method: string; auth: () => Promise<string> }[] => [
      { label: 'POST /v1/assessments', url: `${service.baseUrl}/v1/assessments`, method: 'POST', auth: async () => `Bearer ${await liveKey()}` },
      { label: 'POST invitations', url: `${service.baseUrl}/v1/assessments/${assessment.id}/invitations`, method: 'POST', auth: async () => `Bearer ${await liveKey()}` },
      { label: 'POST /internal/workspaces', url: `${service.internalUrl}/internal/workspaces`, method: 'POST', auth: async () => `Bearer ${service.internalToken}` },
      { label: 'POST api-keys', url: `${service.internalUrl}/internal/workspaces/${ws.id}/api-keys`, method: 'POST', auth: async () => `Bearer ${service.internalToken}` },
      { label: 'PUT webhook', url: `${service.internalUrl}/internal/workspaces/${ws.id}/webhook`, method: 'PUT', auth: async () => `Bearer ${service.internalToken}` },
      { label: 'POST custom-tests', url: `${service.internalUrl}/internal/workspaces/${ws.id}/custom-tests`, method: 'POST', auth: async () => `Bearer ${service.internalToken}` },
      { label: 'POST assessment tests', url: `${service.internalUrl}/internal/assessments/${assessment.id}/tests`, method: 'POST', auth: async () => `Bearer ${service.internalToken}` },
      { label: 'POST registrations', url: `${service.internalUrl}/internal/registrations`, method: 'POST', auth: async () => `Bearer ${service.internalToken}` },
      { label: 'POST complete', url: `${service.internalUrl}/internal/candidates/${candidateId}/assessments/${assessment.id}/tests/verbal-reasoning/complete`, method: 'POST', auth: async () => `Bearer ${service.internalToken}` },
      { label: 'POST clock', url: `${service.internalUrl}/internal/clock`, method: 'POST', auth: async () => `Bearer ${service.internalToken}` },
    ];

    it('malformed JSON: 400 invalid_json on every write route that reads a body', async () => {
      const bodies = ['{', '{"a":', '{"a":1,}', "{'a':1}", '{"a":1}}', 'nul', 'tru', '[1,2', '{"a":"\\x"}', '{"a":"\u0001"}', '{"a":01}', '{"a":NaN}', '{"a":Infinity}', '\u0000', '{}{}', '[]', '42', '"x"', 'null'];
      for (const route of writeRoutes()) {
        for (const raw of bodies) {
          const answer = await request(route.url, { method: route.method, headers: { authorization: await route.auth(), 'content-type': 'application/json' }, raw });
          expectHandled(answer, { route: route.label, raw });
          if (route.label !== 'POST clock') expect({ route: route.label, raw, status: answer.status, code: answer.body?.error?.code }).toEqual({ route: route.label, raw, status: 400, code: 'invalid_json' });
        }
      }
    });

    it('invalid UTF-8 in a body: 400 invalid_json', async () => {
      for (const route of writeRoutes().slice(0, 3)) {
        const answer = await rawHttp(new URL(route.url).origin, route.method, new URL(route.url).pathname, { authorization: await route.auth(), 'content-type': 'application/json' }, '');
        expectHandled(answer, route.label);
        const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","tests":["numerical-reasoning"]}')]);
        const bad = await fetch(route.url, { method: route.method, headers: { authorization: await route.auth(), 'content-type': 'application/json' }, body: bytes });
        const text = await bad.text();
        expect({ route: route.label, status: bad.status, body: JSON.parse(text) }).toEqual({ route: route.label, status: 400, body: { error: { code: 'invalid_json', message: expect.any(String) } } });
      }
    });

    it('a body over 1 MB still being sent when the 413 comes: the client finishes sending and the connection closes without a reset', async () => {
      const url = new URL(service.baseUrl);
      const length = 1_100_000;
      const head = `POST /v1/assessments HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
      const socket = connect(Number(url.port), url.hostname);
      let received = '';
      let ended = false;
      const errors: string[] = [];
      socket.on('data', (chunk: Buffer) => { received += chunk.toString('utf8'); });
      socket.on('end', () => { ended = true; });
      socket.on('error', (error) => errors.push(error.message));
      const until = async (what: () => boolean, label: string): Promise<void> => {
        for (const deadline = Date.now() + 10_000; !what(); await sleep(10)) if (Date.now() > deadline) throw new Error(`waited for ${label}: ${received.slice(0, 200)} ${errors.join(', ')}`);
      };
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(head + 'x'.repeat(64 * 1024));
      // The refusal comes from the Content-Length, before the body is read.
      await until(() => received.includes('payload_too_large'), 'the 413');
      expect(received.startsWith('HTTP/1.1 413 ')).toBe(true);
      // The rest of the body, sent after the answer came, in pieces: no reset meets it.
      for (let sent = 64 * 1024; sent < length; sent += 128 * 1024) {
        await new Promise<void>((resolve, reject) => socket.write('x'.repeat(Math.min(128 * 1024, length - sent)), (error) => (error ? reject(error) : resolve())));
        await sleep(20);
      }
      socket.end();
      await until(() => ended || socket.destroyed, 'the server to close its side');
      await sleep(50);
      expect(errors).toEqual([]);
      socket.destroy();
    });

    it('a body over 1 MB: 413 in the error shape, authenticated or not, public or internal', async () => {
      const huge = JSON.stringify({ name: 'x'.repeat(1_100_000), tests: ['numerical-reasoning'] });
      for (const [url, headers] of [
        [`${service.baseUrl}/v1/assessments`, { authorization: `Bearer ${await liveKey()}` }],
        [`${service.baseUrl}/v1/assessments`, {}],
        [`${service.baseUrl}/api/v1/assessments/${assessment.id}/invitations`, { authorization: `Bearer ${await liveKey()}` }],
        [`${service.internalUrl}/internal/workspaces`, { authorization: `Bearer ${service.internalToken}` }],
      ] as const) {
        const answer = await rawPost(url, huge, { ...headers, 'content-type': 'application/json' });
        expectError(answer, 413, 'payload_too_large');
      }
      // Nothing was created.
      expect((await api(service, ws.live).get('/v1/assessments')).body.data.map((item: { id: string }) => item.id)).toEqual([assessment.id]);
      // A large body under the limit is fine: 100 people with long names.
      const candidates = Array.from({ length: 100 }, (_, index) => ({ email: `big${index}@example.com`, firstName: 'f'.repeat(255), surname: 's'.repeat(255) }));
      const big = await invite(service, await liveKey(), assessment.id, candidates);
      expect(big.status).toBe(200);
      expect(big.body.meta.invited).toBe(100);
    });

    it('deeply nested JSON: 400 invalid_json, quickly, and the service keeps answering', async () => {
      const bodies = ['['.repeat(100_000), '{"a":'.repeat(100_000), `{"candidates":${'['.repeat(100_000)}`, `{"candidates":${'['.repeat(5000)}${']'.repeat(5000)}}`,
        `{"name":"x","tests":["numerical-reasoning"],"deep":${'{"a":'.repeat(200)}1${'}'.repeat(200)}}`];
      for (const route of writeRoutes()) {
        for (const raw of bodies) {
          const started = Date.now();
          const answer = await request(route.url, { method: route.method, headers: { authorization: await route.auth(), 'content-type': 'application/json' }, raw });
          expect(Date.now() - started).toBeLessThan(5000);
          expectHandled(answer, { route: route.label, length: raw.length });
          if (route.label !== 'POST clock') expect({ route: route.label, status: answer.status, code: answer.body?.error?.code }).toEqual({ route: route.label, status: 400, code: 'invalid_json' });
        }
      }
      expect((await api(service, ws.live).get('/v1/me')).status).toBe(200);
    });

    it('wrong types in every field of every write: never a 5xx', async () => {
      const wrong: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, -1e308, '', ' ', 'x', 'x'.repeat(10_000), [], [null], [[]], {}, { a: 1 }, ['x'], [1, 2, 3], '😀', '\u202e', '<script>', "'; DROP TABLE events; --", { $gt: '' }, { __proto__: { polluted: true } }];
      const invitation = await invite(service, ws.live, assessment.id, [{ email: email('types') }]);
      const baselines: { route: string; body: Record<string, unknown> }[] = [
        { route: 'POST /v1/assessments', body: { name: 'Typed', tests: ['numerical-reasoning'], deadline: null } },
        { route: 'POST invitations', body: { candidates: [{ email: 'typed@example.com', firstName: 'T', surname: 'Y' }] } },
        { route: 'POST /internal/workspaces', body: { name: 'Typed', freeAllowance: 1 } },
        { route: 'POST api-keys', body: { mode: 'live' } },
        { route: 'PUT webhook', body: { url: 'https://hooks.example.com/typed', events: ['testCompleted'] } },
        { route: 'POST custom-tests', body: { name: 'Typed', minutes: 5, questionCount: 5 } },
        { route: 'POST assessment tests', body: { slug: 'x' } },
        { route: 'POST registrations', body: { invitationUrl: invitation.body.data[0].invitationUrl } },
        { route: 'POST registrations', body: { inviteUrl: assessment.inviteUrl, email: 'typed@example.com', firstName: 'T', surname: 'Y' } },
        { route: 'POST complete', body: { ...SCORES, result: 'ok', scores: { a: 1 } } },
        { route: 'POST clock', body: { advanceSeconds: 1 } },
      ];
      const routes = new Map(writeRoutes().map((route) => [route.label, route]));
      for (const { route: label, body } of baselines) {
        const route = routes.get(label);
        if (!route) throw new Error(label);
        for (const field of Object.keys(body)) {
          for (const value of wrong) {
            const answer = await request(route.url, { method: route.method, headers: { authorization: await route.auth() }, body: { ...body, [field]: value } });
            expectHandled(answer, { route: label, field, value: JSON.stringify(value)?.slice(0, 40) });
          }
        }
        for (const value of wrong) {
          const entry = await request(route.url, { method: route.method, headers: { authorization: await route.auth() }, body: label === 'POST invitations' ? { candidates: [value, { email: value, firstName: value, surname: value }] } : { ...body, extra: value } });
          expectHandled(entry, { route: label, extra: JSON.stringify(value)?.slice(0, 40) });
        }
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }, 120_000);

    it('weird path ids: never a 5xx; unknown ids are 404 not_found in the error shape', async () => {
      const ids = ['%00', 'a%00b', '%00%00', 'x'.repeat(1001), 'x'.repeat(5000), '%E2%9C%93', '%F0%9F%98%80', '%C3%28', '%ZZ', '%', '%2F', '%2e%2e', '%20', '..', "'", '%22', '%3Cscript%3E', '__proto__', 'constructor', '%24where', 'null', 'undefined', '-1', '1e999', '%EF%BF%BF', '%ED%A0%80'];
      for (const id of ids) {
        const publicAnswers = [
          await api(service, await liveKey()).get(`/v1/assessments/${id}`),
          await api(service, await liveKey()).get(`/v1/candidates/${id}`),
          await api(service, await liveKey(), '/api').get(`/v1/assessments/${id}`),
          await api(service, await liveKey()).post(`/v1/assessments/${id}/invitations`, { candidates: [{ email: 'weird@example.com' }] }),
        ];
        for (const answer of publicAnswers) expectError(answer, 404, 'not_found');
        const internalAnswers = [
          await app.call('POST', `/internal/workspaces/${id}/verify`),
          await app.call('POST', `/internal/workspaces/${id}/api-keys`, { mode: 'live' }),
          await app.call('POST', `/internal/api-keys/${id}/regenerate`),
          await app.call('GET', `/internal/workspaces/${id}/webhook`),
          await app.call('GET', `/internal/workspaces/${id}/billing`),
          await app.call('POST', `/internal/assessments/${id}/close`),
          await app.call('POST', `/internal/assessments/${id}/tests`, { slug: 'x' }),
          await app.call('POST', `/internal/candidates/${id}/assessments/${assessment.id}/start`),
          await app.call('POST', `/internal/candidates/${candidateId}/assessments/${id}/start`),
          await app.call('POST', `/internal/candidates/${candidateId}/assessments/${assessment.id}/tests/${id}/complete`, SCORES),
          await app.call('POST', `/internal/results/${id}/unlock`),
          await app.call('DELETE', `/internal/candidates/${id}`),
          await app.call('GET', `/internal/streams/${id}`),
          await app.call('GET', `/internal/streams/assessment-${id}`),
        ];
        internalAnswers.forEach((answer, index) => {
          expectHandled(answer, { id: id.slice(0, 20), index });
          // Unknown ids: 404 (a test slug that is not on the assessment is 409 invalid_state).
          expect({ id: id.slice(0, 20), index, status: answer.status }).toEqual({ id: id.slice(0, 20), index, status: index === 9 ? expect.any(Number) : 404 });
        });
      }
    }, 120_000);

    it('unknown ids in query filters (U+0000, unicode, very long): 404 not_found; an address nobody has: an empty list, one longer than any (254): 400', async () => {
      for (const id of ['%00', 'a%00b', '%E2%9C%93', 'x'.repeat(5000)]) {
        for (const path of [`/v1/candidates?assessment=${id}`, `/v1/results?assessment=${id}`, `/v1/completions?assessment=${id}`]) {
          expectError(await api(service, await liveKey()).get(path), 404, 'not_found');
        }
        const byEmail = await api(service, await liveKey()).get(`/v1/candidates?email=${id}`);
        expectHandled(byEmail, { email: id.slice(0, 20) });
        // The document bounds `email` at 254 characters, the longest address (docs/api.md).
        if (id.length > 254) expectError(byEmail, 400, 'invalid_parameter');
        else expect({ id: id.slice(0, 20), status: byEmail.status, data: byEmail.body.data }).toEqual({ id: id.slice(0, 20), status: 200, data: [] });
      }
    });

    it('repeated and odd query parameters: 400 invalid_parameter / invalid_cursor, never a 5xx', async () => {
      const cases: [string, number, string | null][] = [
        ['/v1/assessments?limit=1&limit=2', 400, 'invalid_parameter'],
        ['/v1/assessments?status=active&status=archived', 400, 'invalid_parameter'],
        ['/v1/assessments?status=active&status=active', 400, 'invalid_parameter'],
        ['/v1/assessments?cursor=a&cursor=b', 400, 'invalid_cursor'],
        ['/v1/tests?type=typing&type=language', 400, 'invalid_parameter'],
        ['/v1/candidates?email=a@example.com&email=b@example.com', 400, 'invalid_parameter'],
        ['/v1/candidates?assessment=a&assessment=b', 400, 'invalid_parameter'],
        ['/v1/candidates?updated_since=2026-01-01&updated_since=2026-01-02', 400, 'invalid_parameter'],
        ['/v1/results?since=2026-01-01&since=2026-01-02', 400, 'invalid_parameter'],
        ['/v1/results?order=asc&order=desc', 400, 'invalid_parameter'],
        ['/v1/completions?limit=5&limit=5', 400, 'invalid_parameter'],
        ['/v1/assessments?limit[]=1', 200, null],
        ['/v1/assessments?limit[a]=1', 200, null],
        ['/v1/assessments?__proto__=1&constructor=x&toString=y', 200, null],
        ['/v1/assessments?=&&&=x', 200, null],
        [`/v1/assessments?${'a'.repeat(6000)}=1`, 200, null],
        ['/v1/assessments?limit=%00', 400, 'invalid_parameter'],
        ['/v1/assessments?status=%00', 400, 'invalid_parameter'],
        ['/v1/assessments?cursor=%00', 400, 'invalid_cursor'],
        ['/v1/assessments?cursor=', 400, 'invalid_cursor'],
        ['/v1/results?since=%00', 400, 'invalid_parameter'],
        ['/v1/assessments?limit=%ZZ', 400, 'invalid_parameter'],
      ];
      for (const [path, status, code] of cases) {
        const answer = await api(service, await liveKey()).get(path);
        expectHandled(answer, path.slice(0, 80));
        expect({ path: path.slice(0, 80), status: answer.status, code: answer.body?.error?.code ?? null }).toEqual({ path: path.slice(0, 80), status, code });
      }
    });

    it('odd headers: never a 5xx', async () => {
      const key = await liveKey();
      const path = `/v1/assessments/${assessment.id}/invitations`;
      const body = JSON.stringify({ candidates: [{ email: email('headers') }] });
      const answers: [string, HttpAnswer][] = [
        ['two Authorization headers', await rawHttp(service.baseUrl, 'GET', '/v1/me', { authorization: [`Bearer ${key}`, `Bearer ${key}`] })],
        ['a huge Authorization header', await rawHttp(service.baseUrl, 'GET', '/v1/me', { authorization: `Bearer ${'k'.repeat(7000)}:${'s'.repeat(7000)}` })],
        ['Authorization in Latin-1', await rawHttp(service.baseUrl, 'GET', '/v1/me', { authorization: `Bearer clé:sécret` }, '', { headerEncoding: 'latin1' })],
        ['Basic with UTF-8 garbage', await rawHttp(service.baseUrl, 'GET', '/v1/me', { authorization: `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString('base64')}` })],
        ['two Idempotency-Key headers', await rawHttp(service.baseUrl, 'POST', path, { authorization: `Bearer ${key}`, 'idempotency-key': ['one', 'two'] }, body)],
        ['an Idempotency-Key in Latin-1', await rawHttp(service.baseUrl, 'POST', path, { authorization: `Bearer ${key}`, 'idempotency-key': 'clé' }, body, { headerEncoding: 'latin1' })],
        ['Content-Type with a bogus charset', await rawHttp(service.baseUrl, 'POST', '/v1/assessments', { authorization: `Bearer ${key}`, 'content-type': 'application/json; charset=klingon' }, JSON.stringify({ name: 'cs', tests: ['english-b2'] }))],
        ['Content-Type without a type', await rawHttp(service.baseUrl, 'POST', '/v1/assessments', { authorization: `Bearer ${key}`, 'content-type': ';;;' }, JSON.stringify({ name: 'cs', tests: ['english-b2'] }))],
        ['Content-Encoding gzip on a plain body', await rawHttp(service.baseUrl, 'POST', '/v1/assessments', { authorization: `Bearer ${key}`, 'content-encoding': 'gzip' }, JSON.stringify({ name: 'gz', tests: ['english-b2'] }))],
        ['Accept: text/html', await rawHttp(service.baseUrl, 'GET', '/v1/me', { authorization: `Bearer ${key}`, accept: 'text/html' })],
        ['a long X-Request-Id', await rawHttp(service.baseUrl, 'GET', '/v1/me', { authorization: `Bearer ${key}`, 'x-request-id': 'r'.repeat(5000) })],
        ['a non-ASCII X-Correlation-Id', await rawHttp(service.baseUrl, 'POST', path, { authorization: `Bearer ${key}`, 'x-correlation-id': 'corrélation-😀' }, body)],
        ['Expect: 100-continue', await rawHttp(service.baseUrl, 'POST', '/v1/assessments', { authorization: `Bearer ${key}`, expect: '100-continue' }, JSON.stringify({ name: 'expect', tests: ['english-b2'] }))],
        ['X-HTTP-Method-Override', await rawHttp(service.baseUrl, 'POST', '/v1/me', { authorization: `Bearer ${key}`, 'x-http-method-override': 'GET' }, '{}')],
        ['Host with a path', await rawHttp(service.baseUrl, 'GET', '/v1/me', { authorization: `Bearer ${key}`, 'x-forwarded-host': 'evil.example.com/x' })],
        ['internal token with two spaces', await rawHttp(service.internalUrl, 'GET', '/internal/health', { authorization: `Bearer  ${service.internalToken}` })],
      ];
      for (const [label, answer] of answers) {
        expect({ label, status: answer.status > 0 && answer.status < 500 ? 'handled' : `${answer.status} ${answer.text.slice(0, 200)}` }).toEqual({ label, status: 'handled' });
        if (answer.status >= 400 && answer.status !== 431) {
          expect({ label, body: answer.body }).toEqual({ label, body: { error: { code: expect.any(String), message: expect.any(String) } } });
        }
      }
      const byLabel = new Map(answers);
      // Node keeps the first of repeated Authorization headers; both are the same valid credential here.
      expect(byLabel.get('two Authorization headers')?.status).toBe(200);
      expect(byLabel.get('a huge Authorization header')?.status).toBe(401);
      expect(byLabel.get('two Idempotency-Key headers')?.body?.error?.code).toBe('invalid_idempotency_key');
      expect(byLabel.get('an Idempotency-Key in Latin-1')?.body?.error?.code).toBe('invalid_idempotency_key');
      expect(byLabel.get('Accept: text/html')?.status).toBe(200);
      expect(byLabel.get('Accept: text/html')?.headers.get('content-type')).toMatch(/^application\/json/);
      expect(byLabel.get('X-HTTP-Method-Override')?.status).toBe(404);
    });

    it('requests the HTTP parser refuses (control bytes in header values): 400 in the documented error shape', async () => {
      const key = await liveKey();
      const path = `/v1/assessments/${assessment.id}/invitations`;
      for (const [label, headers] of [
        ['a DEL in the Idempotency-Key', { authorization: `Bearer ${key}`, 'idempotency-key': 'del\u007f' }],
        ['a control byte in Authorization', { authorization: `Bearer ${key}\u0001` }],
        ['a NUL byte in a header', { authorization: `Bearer ${key}`, 'x-note': 'a\u0000b' }],
      ] as const) {
        const answer = await rawHttp(service.baseUrl, 'POST', path, headers, JSON.stringify({ candidates: [{ email: email('parser') }] }));
        expect({ label, status: answer.status, body: answer.body }).toEqual({ label, status: 400, body: { error: { code: expect.any(String), message: expect.any(String) } } });
      }
      expect((await api(service, key).get('/v1/me')).status).toBe(200);
    });

    it('text the stores cannot hold (U+0000, unpaired surrogates) in bodies: never a 5xx', async () => {
      const key = await liveKey();
      const cases: [string, () => Promise<HttpAnswer>][] = [
        ['assessment name with U+0000', () => api(service, key).post('/v1/assessments', { name: 'a\u0000b', tests: ['english-b2'] })],
        ['assessment name with an unpaired surrogate', () => rawPost(`${service.baseUrl}/v1/assessments`, '{"name":"a\\ud800b","tests":["english-b2"]}', { authorization: `Bearer ${key}` })],
        ['invitation e-mail with U+0000', () => invite(service, key, assessment.id, [{ email: 'nul\u0000@example.com' }])],
        ['invitation first name with U+0000', () => invite(service, key, assessment.id, [{ email: email('nul-name'), firstName: 'N\u0000' }])],
        ['invitation surname with an unpaired surrogate', () => rawPost(`${service.baseUrl}/v1/assessments/${assessment.id}/invitations`, `{"candidates":[{"email":"${email('surrogate')}","surname":"\\udc00"}]}`, { authorization: `Bearer ${key}` })],
        ['workspace name with U+0000', () => app.call('POST', '/internal/workspaces', { name: 'W\u0000' })],
        ['custom test name with U+0000', () => app.call('POST', `/internal/workspaces/${ws.id}/custom-tests`, { name: 'C\u0000', minutes: 5, questionCount: 5 })],
        ['scores with U+0000', async () => {
          const fresh = (await app.register({ inviteUrl: assessment.inviteUrl, email: email('nul-scores') })).body.data.candidateId;
          return app.complete(fresh, assessment.id, 'numerical-reasoning', { ...SCORES, result: 'r\u0000', scores: { 'k\u0000': 'v\u0000' } });
        }],
        ['registration name with U+0000', () => app.register({ inviteUrl: assessment.inviteUrl, email: email('nul-reg'), firstName: 'R\u0000' })],
        ['webhook URL with U+0000', () => app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: 'https://hooks.example.com/\u0000', events: ['testCompleted'] })],
      ];
      const failures: string[] = [];
      for (const [label, send] of cases) {
        const answer = await send();
        if (answer.status >= 500) failures.push(`${label}: ${answer.status} ${answer.body?.error?.code}`);
        else if (answer.status >= 400) expect({ label, body: answer.body }).toEqual({ label, body: { error: { code: expect.any(String), message: expect.any(String) } } });
      }
      expect(failures).toEqual([]);
      // Whatever happened, the service still works.
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).status).toBe(200);
    });
  });
});
