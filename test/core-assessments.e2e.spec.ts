import { jest } from '@jest/globals';
import { api, internal } from './support/client.js';
import { ISO_TIME, SLUGS, type Workspace, addDays, createAssessment, domainToday, expectError, expectRateLimitHeaders, invite, rawPost } from './support/core-helpers.js';
import { type RunningService, startService } from './support/service.js';

// Many requests per test on a shared, often loaded machine: the 5 s default is too tight.
jest.setTimeout(30_000);

describe('assessments: create, list, page, read, close', () => {
  let service: RunningService;
  let app: ReturnType<typeof internal>;
  let ws: Workspace;
  let catalogue: Map<string, { name: string }>;

  beforeAll(async () => {
    service = await startService();
    app = internal(service);
    ws = await app.workspace({ name: 'Assessments Inc' });
    const tests = (await api(service, ws.sandbox).get('/v1/tests')).body.data as { slug: string; name: string }[];
    catalogue = new Map(tests.map((test) => [test.slug, test]));
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  describe('POST /v1/assessments', () => {
    it('creates an assessment: 201 with the shape of API 2.3', async () => {
      const own = await app.workspace();
      const answer = await api(service, own.live).post('/v1/assessments', { name: 'Backend developer', tests: ['python-coding', 'numerical-reasoning', 'big-five-personality'] });
      expect(answer.status).toBe(201);
      expectRateLimitHeaders(answer);
      expect(Object.keys(answer.body)).toEqual(['data']);
      const data = answer.body.data;
      expect(Object.keys(data).sort()).toEqual(['candidateCount', 'createdAt', 'deadline', 'id', 'inviteUrl', 'name', 'status', 'tests']);
      expect(data).toEqual({
        id: expect.any(String),
        name: 'Backend developer',
        status: 'active',
        createdAt: expect.stringMatching(ISO_TIME),
        deadline: null,
        tests: ['python-coding', 'numerical-reasoning', 'big-five-personality'].map((slug) => ({ slug, name: catalogue.get(slug)?.name, type: 'library' })),
        candidateCount: 0,
        inviteUrl: expect.any(String),
      });
      expect(data.id).toMatch(/^asm_[A-Za-z0-9]{16}$/);
      expect(data.inviteUrl.startsWith(`${service.internalUrl.replace('127.0.0.1', 'localhost')}/`)).toBe(true);
      expect(Math.abs(Date.parse(data.createdAt) - Date.now())).toBeLessThan(60_000);
      // It reads back at once, identical.
      const read = await api(service, own.live).get(`/v1/assessments/${data.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ data });
    });

    it('trims the name and keeps a deadline of today or later', async () => {
      const today = await domainToday(service, ws.live);
      const trimmed = await api(service, ws.live).post('/v1/assessments', { name: '  \t Sales lead \n ', tests: ['sales-situational'], deadline: today });
      expect(trimmed.status).toBe(201);
      expect(trimmed.body.data.name).toBe('Sales lead');
      expect(trimmed.body.data.deadline).toBe(today);
      const later = await api(service, ws.live).post('/v1/assessments', { name: 'x'.repeat(200), tests: ['sales-situational'], deadline: addDays(today, 400) });
      expect(later.status).toBe(201);
      expect(later.body.data.name).toBe('x'.repeat(200));
      expect(later.body.data.deadline).toBe(addDays(today, 400));
      const padded = await api(service, ws.live).post('/v1/assessments', { name: `  ${'y'.repeat(200)}  `, tests: ['sales-situational'], deadline: null });
      expect(padded.status).toBe(201);
      expect(padded.body.data.name).toBe('y'.repeat(200));
      expect(padded.body.data.deadline).toBeNull();
      const ten = await api(service, ws.live).post('/v1/assessments', { name: 'Ten', tests: [...catalogue.keys()].slice(0, 10) });
      expect(ten.status).toBe(201);
      expect(ten.body.data.tests.map((test: { slug: string }) => test.slug)).toEqual([...catalogue.keys()].slice(0, 10));
      // An unverified workspace may create assessments; a sandbox key may too.
      const unverified = await app.workspace({ verified: false });
      expect((await api(service, unverified.sandbox).post('/v1/assessments', { name: 'Unverified', tests: ['english-b2'] })).status).toBe(201);
    });

    it('never answers an inviteUrl of null, and gives each assessment its own', async () => {
      const a = await createAssessment(service, ws.live);
      const b = await createAssessment(service, ws.sandbox);
      expect(typeof a.inviteUrl).toBe('string');
      expect(typeof b.inviteUrl).toBe('string');
      expect(a.inviteUrl).not.toBe(b.inviteUrl);
      expect(a.id).not.toBe(b.id);
    });

    const today = '__today__';
    it.each([
      ['name missing', { tests: ['numerical-reasoning'] }],
      ['name empty', { name: '', tests: ['numerical-reasoning'] }],
      ['name only white space', { name: ' \t\n ', tests: ['numerical-reasoning'] }],
      ['name of 201 characters', { name: 'n'.repeat(201), tests: ['numerical-reasoning'] }],
      ['name a number', { name: 42, tests: ['numerical-reasoning'] }],
      ['name null', { name: null, tests: ['numerical-reasoning'] }],
      ['name a list', { name: ['a'], tests: ['numerical-reasoning'] }],
      ['tests missing', { name: 'a' }],
      ['tests empty', { name: 'a', tests: [] }],
      ['tests of 11 slugs', { name: 'a', tests: ['numerical-reasoning', 'verbal-reasoning', 'abstract-reasoning', 'critical-thinking', 'attention-to-detail', 'mechanical-reasoning', 'big-five-personality', 'disc-behavioural-profile', 'work-motivation', 'culture-add', 'enneagram-profile'] }],
      ['tests a string', { name: 'a', tests: 'numerical-reasoning' }],
      ['tests null', { name: 'a', tests: null }],
      ['tests an object', { name: 'a', tests: { 0: 'numerical-reasoning' } }],
      ['tests with a number', { name: 'a', tests: [1] }],
      ['tests with null', { name: 'a', tests: [null] }],
      ['tests with an object', { name: 'a', tests: [{ slug: 'numerical-reasoning' }] }],
      ['tests with a repeat', { name: 'a', tests: ['numerical-reasoning', 'verbal-reasoning', 'numerical-reasoning'] }],
      ['deadline not a calendar date', { name: 'a', tests: ['numerical-reasoning'], deadline: '2030-02-30' }],
      ['deadline in the past', { name: 'a', tests: ['numerical-reasoning'], deadline: '2020-01-01' }],
      ['deadline yesterday', { name: 'a', tests: ['numerical-reasoning'], deadline: `${today}-1` }],
      ['deadline a date-time', { name: 'a', tests: ['numerical-reasoning'], deadline: '2099-01-01T00:00:00Z' }],
      ['deadline with slashes', { name: 'a', tests: ['numerical-reasoning'], deadline: '2099/01/01' }],
      ['deadline a word', { name: 'a', tests: ['numerical-reasoning'], deadline: 'tomorrow' }],
      ['deadline a number', { name: 'a', tests: ['numerical-reasoning'], deadline: 20990101 }],
      ['deadline empty', { name: 'a', tests: ['numerical-reasoning'], deadline: '' }],
      ['deadline month 13', { name: 'a', tests: ['numerical-reasoning'], deadline: '2099-13-01' }],
      ['deadline short year', { name: 'a', tests: ['numerical-reasoning'], deadline: '99-01-01' }],
      ['deadline an object', { name: 'a', tests: ['numerical-reasoning'], deadline: {} }],
    ])('refuses %s with 422 validation_failed and creates nothing', async (_label, body) => {
      const own = await app.workspace();
      const payload: Record<string, unknown> = { ...body };
      if (payload.deadline === `${today}-1`) payload.deadline = addDays(await domainToday(service, own.live), -1);
      const answer = await api(service, own.live).post('/v1/assessments', payload);
      expectError(answer, 422, 'validation_failed');
      expectRateLimitHeaders(answer);
      const list = await api(service, own.live).get('/v1/assessments');
      expect(list.body.data.filter((assessment: { name: string }) => assessment.name !== 'clock probe')).toEqual([]);
    });

    it.each([
      [['no-such-test']],
      [['numerical-reasoning', 'no-such-test']],
      [['NUMERICAL-REASONING']],
      [[' numerical-reasoning']],
      [['']],
    ])('refuses the slugs %j with 422 unknown_test and creates nothing', async (tests) => {
      const own = await app.workspace();
      expectError(await api(service, own.live).post('/v1/assessments', { name: 'Unknown', tests }), 422, 'unknown_test');
      expect((await api(service, own.live).get('/v1/assessments')).body.data).toEqual([]);
    });

    it('refuses a custom test slug of the workspace through the public API with unknown_test', async () => {
      const own = await app.workspace();
      const custom = await app.call('POST', `/internal/workspaces/${own.id}/custom-tests`, { name: 'In-house quiz', minutes: 10, questionCount: 5 });
      expect(custom.status).toBe(201);
      expectError(await api(service, own.live).post('/v1/assessments', { name: 'Custom', tests: [custom.body.data.slug] }), 422, 'unknown_test');
    });

    it.each([
      ['a list', '[]'], ['a list of the fields', '[{"name":"a","tests":["numerical-reasoning"]}]'], ['null', 'null'], ['a number', '5'],
      ['a string', '"name"'], ['true', 'true'], ['broken JSON', '{"name":"a","tests":["numerical-reasoning"]'], ['an empty body', ''],
      ['white space', '   '], ['form encoding', 'name=a&tests=numerical-reasoning'], ['two objects', '{"name":"a"}{"name":"b"}'],
      ['a trailing comma', '{"name":"a","tests":["numerical-reasoning"],}'], ['single quotes', "{'name':'a'}"],
    ])('refuses %s as body with 400 invalid_json', async (_label, raw) => {
      const answer = await rawPost(`${service.baseUrl}/v1/assessments`, raw, { authorization: `Bearer ${ws.sandbox}`, 'content-type': 'application/json' });
      expectError(answer, 400, 'invalid_json');
      expectRateLimitHeaders(answer);
    });

    it.each([
      ['application/json', { 'content-type': 'application/json' }],
      ['application/json; charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }],
      ['text/plain', { 'content-type': 'text/plain' }],
      ['application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['multipart/form-data', { 'content-type': 'multipart/form-data; boundary=xyz' }],
      ['application/octet-stream', { 'content-type': 'application/octet-stream' }],
      ['no Content-Type', {}],
    ])('parses the body as JSON whatever the Content-Type: %s', async (label, headers) => {
      const own = await app.workspace();
      const answer = await rawPost(`${service.baseUrl}/v1/assessments`, JSON.stringify({ name: ` ${label} `, tests: ['typing-speed-english'] }), { authorization: `Bearer ${own.live}`, ...headers });
      expect(answer.status).toBe(201);
      expect(answer.body.data.name).toBe(label);
      expect(answer.body.data.tests).toEqual([{ slug: 'typing-speed-english', name: catalogue.get('typing-speed-english')?.name, type: 'library' }]);
      // A non-object body is invalid_json with that Content-Type too.
      expectError(await rawPost(`${service.baseUrl}/v1/assessments`, '[1]', { authorization: `Bearer ${own.live}`, ...headers }), 400, 'invalid_json');
    });

    it('ignores unknown body fields and a leading byte-order mark', async () => {
      const own = await app.workspace();
      const answer = await api(service, own.live).post('/v1/assessments', { name: 'Extra', tests: ['english-c1'], id: 'mine', status: 'archived', candidateCount: 9, inviteUrl: null });
      expect(answer.status).toBe(201);
      expect(answer.body.data).toMatchObject({ name: 'Extra', status: 'active', candidateCount: 0 });
      expect(answer.body.data.id).not.toBe('mine');
      // Open sign-up is always on: the link of this assessment, with a 24-byte token.
      const { id, inviteUrl } = answer.body.data as { id: string; inviteUrl: string };
      expect(inviteUrl.slice(0, inviteUrl.lastIndexOf('/'))).toBe(`${service.internalUrl.replace('127.0.0.1', 'localhost')}/join/${id}`);
      expect(inviteUrl.slice(inviteUrl.lastIndexOf('/') + 1)).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const bom = await rawPost(`${service.baseUrl}/v1/assessments`, `\uFEFF${JSON.stringify({ name: 'Bom', tests: ['english-c1'] })}`, { authorization: `Bearer ${own.live}`, 'content-type': 'application/json' });
      expect(bom.status).toBe(201);
    });
  });

  describe('GET /v1/assessments', () => {
    let own: Workspace;
    const created: Record<string, any>[] = [];

    beforeAll(async () => {
      own = await app.workspace({ name: 'Listing' });
      for (let index = 0; index < 6; index += 1) created.push(await createAssessment(service, own.live, { name: `List ${index}`, tests: [SLUGS[index % SLUGS.length]] }));
    });

    it('lists newest first with meta.nextCursor null at the end', async () => {
      const answer = await api(service, own.live).get('/v1/assessments');
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['data', 'meta']);
      expect(answer.body.meta).toEqual({ nextCursor: null });
      expect(answer.body.data).toEqual([...created].reverse());
      const times = answer.body.data.map((assessment: { createdAt: string }) => assessment.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('shows only the workspace own assessments', async () => {
      const other = await app.workspace();
      await createAssessment(service, other.live, { name: 'Not yours' });
      const ids = (await api(service, own.live).get('/v1/assessments')).body.data.map((assessment: { id: string }) => assessment.id);
      expect(ids).toEqual([...created].reverse().map((assessment) => assessment.id));
    });

    it.each([['0'], ['101'], ['abc'], ['1.5'], ['-1'], [''], ['+5'], ['1e1'], ['%205'], ['99999999999999999999']])('refuses limit=%s with 400 invalid_parameter', async (limit) => {
      const answer = await api(service, own.live).get(`/v1/assessments?limit=${limit}`);
      expectError(answer, 400, 'invalid_parameter');
      expectRateLimitHeaders(answer);
    });

    it('refuses a repeated limit with 400 invalid_parameter', async () => {
      expectError(await api(service, own.live).get('/v1/assessments?limit=1&limit=2'), 400, 'invalid_parameter');
    });

    it('takes limits 1 and 100 and ignores unknown parameters', async () => {
      const one = await api(service, own.live).get('/v1/assessments?limit=1&foo=bar');
      expect(one.status).toBe(200);
      expect(one.body.data).toEqual([created[5]]);
      expect(typeof one.body.meta.nextCursor).toBe('string');
      const hundred = await api(service, own.live).get('/v1/assessments?limit=100');
      expect(hundred.body).toEqual({ data: [...created].reverse(), meta: { nextCursor: null } });
      const exact = await api(service, own.live).get('/v1/assessments?limit=6');
      expect(exact.body.data).toHaveLength(6);
      expect(exact.body.meta.nextCursor).toBeNull();
    });

    it('pages with the cursor without skips or repeats while assessments are created between pages', async () => {
      const paging = await app.workspace({ name: 'Paging' });
      const before: Record<string, any>[] = [];
      for (let index = 0; index < 7; index += 1) before.push(await createAssessment(service, paging.live, { name: `Page ${index}` }));
      const expected = [...before].reverse().map((assessment) => assessment.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const path: string = cursor === null ? '/v1/assessments?limit=2' : `/v1/assessments?limit=2&cursor=${encodeURIComponent(cursor)}`;
        const answer = await api(service, paging.live).get(path);
        expect(answer.status).toBe(200);
        expect(answer.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...answer.body.data.map((assessment: { id: string }) => assessment.id));
        cursor = answer.body.meta.nextCursor;
        pages += 1;
        // Rows created while paging (by either key of the workspace) neither shift the boundary nor repeat.
        await createAssessment(service, pages % 2 === 0 ? paging.live : paging.sandbox, { name: `Created while paging ${pages}` });
      } while (cursor !== null && pages < 10);
      expect(seen).toEqual(expected);
      expect(pages).toBe(4);
      // A fresh first page shows the new ones first.
      const fresh = await api(service, paging.live).get('/v1/assessments?limit=100');
      expect(fresh.body.data).toHaveLength(11);
      expect(fresh.body.data.slice(4).map((assessment: { id: string }) => assessment.id)).toEqual(expected);
    });

    it('pages the same way with the sandbox key, and a status filter', async () => {
      await app.close(created[1].id);
      await app.close(created[4].id);
      const active = [created[5], created[3], created[2], created[0]].map((assessment) => assessment.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const answer = await api(service, own.sandbox).get(`/v1/assessments?status=active&limit=3${query}`);
        expect(answer.status).toBe(200);
        expect(answer.body.data.every((assessment: { status: string }) => assessment.status === 'active')).toBe(true);
        seen.push(...answer.body.data.map((assessment: { id: string }) => assessment.id));
        cursor = answer.body.meta.nextCursor;
      } while (cursor !== null);
      expect(seen).toEqual(active);
      const archived = await api(service, own.live).get('/v1/assessments?status=archived');
      expect(archived.body.data.map((assessment: { id: string }) => assessment.id)).toEqual([created[4].id, created[1].id]);
      expect(archived.body.data.every((assessment: { status: string }) => assessment.status === 'archived')).toBe(true);
      expect(archived.body.meta).toEqual({ nextCursor: null });
      const both = await api(service, own.live).get('/v1/assessments');
      expect(both.body.data.map((assessment: { id: string }) => assessment.id)).toEqual([...created].reverse().map((assessment) => assessment.id));
    });

    it.each([['closed'], ['ACTIVE'], [''], ['all'], ['active,archived']])('refuses status=%s with 400 invalid_parameter', async (status) => {
      expectError(await api(service, own.live).get(`/v1/assessments?status=${status}`), 400, 'invalid_parameter');
    });

    it('refuses an edited or made-up cursor with 400 invalid_cursor', async () => {
      const first = await api(service, own.live).get('/v1/assessments?limit=2');
      const cursor: string = first.body.meta.nextCursor;
      expect(typeof cursor).toBe('string');
      const flip = (text: string, index: number) => text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);
      const edited = [
        flip(cursor, 0), flip(cursor, Math.floor(cursor.length / 2)), flip(cursor, cursor.length - 1), `${cursor}A`, cursor.slice(0, -1),
        'abc', 'eyJ0IjoiMjAyNi0wMS0wMSIsImlkIjoieCJ9', Buffer.from(JSON.stringify({ t: '2030-01-01T00:00:00.000Z', id: 'x' })).toString('base64url'),
        '', '%00', '====',
      ];
      for (const value of edited) {
        const answer = await api(service, own.live).get(`/v1/assessments?limit=2&cursor=${encodeURIComponent(value)}`);
        expect({ value, status: answer.status, code: answer.body?.error?.code }).toEqual({ value, status: 400, code: 'invalid_cursor' });
        expectError(answer, 400, 'invalid_cursor');
      }
      // The genuine cursor still works.
      const second = await api(service, own.live).get(`/v1/assessments?limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(second.status).toBe(200);
      expect(second.body.data).toHaveLength(2);
    });

    it('refuses a cursor of another list with 400 invalid_cursor', async () => {
      for (let index = 0; index < 3; index += 1) {
        const made = await createAssessment(service, own.live, { name: `For candidates ${index}` });
        const invited = await invite(service, own.live, made.id, [{ email: `cursor.kind.${index}@example.com` }]);
        expect((await app.register({ invitationUrl: invited.body.data[0].invitationUrl })).status).toBe(201);
      }
      const candidates = await api(service, own.live).get('/v1/candidates?limit=1');
      expect(typeof candidates.body.meta.nextCursor).toBe('string');
      expectError(await api(service, own.live).get(`/v1/assessments?cursor=${encodeURIComponent(candidates.body.meta.nextCursor)}`), 400, 'invalid_cursor');
    });
  });

  describe('GET /v1/assessments/{id}', () => {
    it('answers one assessment; an unknown id and another workspace id both answer 404 not_found', async () => {
      const own = await app.workspace();
      const other = await app.workspace();
      const mine = await createAssessment(service, own.live, { name: 'Mine', tests: ['sql-queries', 'java-coding'] });
      const theirs = await createAssessment(service, other.live, { name: 'Theirs' });
      const read = await api(service, own.live).get(`/v1/assessments/${mine.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ data: mine });
      expectRateLimitHeaders(read);
      const unknown = await api(service, own.live).get('/v1/assessments/asm_doesnotexist00');
      const foreign = await api(service, own.live).get(`/v1/assessments/${theirs.id}`);
      expectError(unknown, 404, 'not_found');
      expectError(foreign, 404, 'not_found');
      expect(foreign.body).toEqual(unknown.body);
      expectError(await api(service, own.sandbox).get(`/v1/assessments/${theirs.id}`), 404, 'not_found');
      // Ids are used exactly as received.
      expectError(await api(service, own.live).get(`/v1/assessments/${mine.id.toUpperCase()}`), 404, 'not_found');
      expectError(await api(service, own.live).get(`/v1/assessments/${mine.id}%20`), 404, 'not_found');
      expectError(await api(service, own.live).get(`/v1/assessments/${mine.id}x`), 404, 'not_found');
      // Invitations to another workspace's assessment: 404 as well, nobody invited.
      expectError(await invite(service, own.live, theirs.id, [{ email: 'cross@example.com' }]), 404, 'not_found');
      expect((await api(service, other.live).get(`/v1/assessments/${theirs.id}`)).body.data).toEqual(theirs);
    });

    it('shares assessments between the live and sandbox keys of a workspace', async () => {
      const own = await app.workspace();
      const live = await createAssessment(service, own.live, { name: 'Made live' });
      const sandbox = await createAssessment(service, own.sandbox, { name: 'Made sandbox' });
      expect((await api(service, own.sandbox).get(`/v1/assessments/${live.id}`)).body).toEqual({ data: live });
      expect((await api(service, own.live).get(`/v1/assessments/${sandbox.id}`)).body).toEqual({ data: sandbox });
      const sandboxList = await api(service, own.sandbox).get('/v1/assessments');
      expect(sandboxList.body.data.map((assessment: { id: string }) => assessment.id)).toEqual([sandbox.id, live.id]);
      const liveList = await api(service, own.live).get('/v1/assessments');
      expect(liveList.body.data.map((assessment: { id: string }) => assessment.id)).toEqual([sandbox.id, live.id]);
    });

    it('counts registered candidates of the reading key mode at once (read-your-writes)', async () => {
      const own = await app.workspace();
      const assessment = await createAssessment(service, own.live, { name: 'Counting' });
      const liveInvite = await invite(service, own.live, assessment.id, [{ email: 'count.live@example.com' }]);
      const sandboxInvite = await invite(service, own.sandbox, assessment.id, [{ email: 'count.sandbox@example.com' }]);
      // Invited but not registered: not counted.
      expect((await api(service, own.live).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(0);
      expect((await app.register({ invitationUrl: liveInvite.body.data[0].invitationUrl })).status).toBe(201);
      expect((await api(service, own.live).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(1);
      expect((await api(service, own.sandbox).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(0);
      expect((await app.register({ invitationUrl: sandboxInvite.body.data[0].invitationUrl })).status).toBe(201);
      expect((await api(service, own.sandbox).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(1);
      expect((await app.register({ inviteUrl: assessment.inviteUrl, email: 'Open.Signup@Example.com' })).status).toBe(201);
      expect((await api(service, own.live).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(2);
      expect((await api(service, own.live).get('/v1/assessments')).body.data[0].candidateCount).toBe(2);
      expect((await api(service, own.sandbox).get('/v1/assessments')).body.data[0].candidateCount).toBe(1);
    });
  });

  describe('closing (internal application)', () => {
    it('archives the assessment; it reads archived at once and refuses invitations with 422 assessment_closed', async () => {
      const own = await app.workspace();
      const assessment = await createAssessment(service, own.live, { name: 'To close' });
      expect((await invite(service, own.live, assessment.id, [{ email: 'before.close@example.com' }])).body.meta.invited).toBe(1);
      const closed = await app.close(assessment.id);
      expect(closed.status).toBe(200);
      expect(closed.body).toEqual({ data: { ...assessment, status: 'archived' } });
      const read = await api(service, own.live).get(`/v1/assessments/${assessment.id}`);
      expect(read.body).toEqual({ data: { ...assessment, status: 'archived' } });
      expect((await api(service, own.sandbox).get(`/v1/assessments/${assessment.id}`)).body.data.status).toBe('archived');
      for (const credential of [own.live, own.sandbox]) {
        const refused = await invite(service, credential, assessment.id, [{ email: 'after.close@example.com' }]);
        expectError(refused, 422, 'assessment_closed');
        expectRateLimitHeaders(refused);
      }
      // Also for an address already invited, and with an idempotency key.
      expectError(await invite(service, own.live, assessment.id, [{ email: 'before.close@example.com' }], { 'Idempotency-Key': 'closed-1' }), 422, 'assessment_closed');
      // Closing again changes nothing.
      const again = await app.close(assessment.id);
      expect(again.status).toBe(200);
      expect(again.body.data.status).toBe('archived');
      expectError(await app.close('asm_unknown'), 404, 'not_found');
      // Nobody was invited after the close.
      const emails = await app.call('GET', '/internal/emails?to=after.close@example.com');
      expect(emails.body).toEqual({ data: [] });
    });
  });
});
