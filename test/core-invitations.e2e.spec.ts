import { jest } from '@jest/globals';
import { api, internal } from './support/client.js';
import { type Workspace, addDays, createAssessment, domainToday, email, expectError, expectRateLimitHeaders, invite, rawPost } from './support/core-helpers.js';
import { rawHttp } from './support/core-raw-http.js';
import { type RunningService, startService } from './support/service.js';

// Many requests per test on a shared, often loaded machine: the 5 s default is too tight.
jest.setTimeout(30_000);

const ENTRY_KEYS = ['candidateId', 'email', 'firstName', 'invitationUrl', 'reason', 'status', 'surname'];

describe('invitations: outcomes, whole-request refusals, sandbox allowance, idempotency, concurrency', () => {
  let service: RunningService;
  let app: ReturnType<typeof internal>;

  beforeAll(async () => {
    service = await startService({ SIMULATED_CLOCK: 'true' });
    app = internal(service);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  const invitationsPath = (assessmentId: string) => `/v1/assessments/${assessmentId}/invitations`;
  const emailsTo = async (address: string) => (await app.call('GET', `/internal/emails?to=${encodeURIComponent(address)}`)).body.data as { text: string }[];
  const remaining = async (credential: string) => (await api(service, credential).get('/v1/me')).body.data.sandbox.remaining as number;

  describe('entry outcomes (API 4.3)', () => {
    let ws: Workspace;
    let assessment: Record<string, any>;

    beforeAll(async () => {
      ws = await app.workspace({ name: 'Outcomes' });
      assessment = await createAssessment(service, ws.live, { name: 'Outcomes' });
    });

    it('invites: 200, one entry per person with the 2.4 shape, trimmed lower-case address, names as sent, e-mail with the link', async () => {
      const address = email('Invited');
      const answer = await invite(service, ws.live, assessment.id, [
        { email: `  ${address.toUpperCase()}  `, firstName: 'Ann', surname: "O'Neil" },
        { email: email('nameless') },
      ]);
      expect(answer.status).toBe(200);
      expectRateLimitHeaders(answer);
      expect(Object.keys(answer.body).sort()).toEqual(['data', 'meta']);
      expect(answer.body.meta).toEqual({ assessmentId: assessment.id, invited: 2, alreadyInvited: 0, failed: 0 });
      const [first, second] = answer.body.data;
      expect(Object.keys(first).sort()).toEqual(ENTRY_KEYS);
      expect(first).toEqual({ email: address.toLowerCase(), firstName: 'Ann', surname: "O'Neil", status: 'invited', reason: null, candidateId: null, invitationUrl: expect.any(String) });
      expect(second).toMatchObject({ firstName: '', surname: '', status: 'invited', reason: null, candidateId: null });
      expect(first.invitationUrl).not.toBe(second.invitationUrl);
      const mails = await emailsTo(address);
      expect(mails).toHaveLength(1);
      expect(mails[0]?.text).toContain(first.invitationUrl);
    });

    it('already_invited / already_invited: nothing sent, invitationUrl is the existing link (whatever the mode of the pending invitation)', async () => {
      const address = email('twice');
      const first = await invite(service, ws.live, assessment.id, [{ email: address, firstName: 'First' }]);
      const again = await invite(service, ws.live, assessment.id, [{ email: address.toUpperCase(), firstName: 'Second', surname: 'Try' }]);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({
        data: [{ email: address, firstName: 'Second', surname: 'Try', status: 'already_invited', reason: 'already_invited', candidateId: null, invitationUrl: first.body.data[0].invitationUrl }],
        meta: { assessmentId: assessment.id, invited: 0, alreadyInvited: 1, failed: 0 },
      });
      // The sandbox key sees the same pending invitation: one invitation per assessment and address whatever the mode.
      const sandbox = await invite(service, ws.sandbox, assessment.id, [{ email: address }]);
      expect(sandbox.body.data[0]).toMatchObject({ status: 'already_invited', reason: 'already_invited', invitationUrl: first.body.data[0].invitationUrl });
      expect(await emailsTo(address)).toHaveLength(1);
    });

    it('already_invited / already_candidate: candidateId set, nothing sent', async () => {
      const address = email('candidate');
      const invited = await invite(service, ws.live, assessment.id, [{ email: address }]);
      const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
      expect(registered.status).toBe(201);
      const again = await invite(service, ws.live, assessment.id, [{ email: address, firstName: 'Again' }]);
      expect(again.body).toEqual({
        data: [{ email: address, firstName: 'Again', surname: '', status: 'already_invited', reason: 'already_candidate', candidateId: registered.body.data.candidateId, invitationUrl: null }],
        meta: { assessmentId: assessment.id, invited: 0, alreadyInvited: 1, failed: 0 },
      });
      // A candidate who signed up through the public link, never invited, is already a candidate too.
      const open = email('open');
      const signedUp = await app.register({ inviteUrl: assessment.inviteUrl, email: open, firstName: 'Open' });
      expect(signedUp.status).toBe(201);
      const openAgain = await invite(service, ws.live, assessment.id, [{ email: open }]);
      expect(openAgain.body.data[0]).toEqual({ email: open, firstName: '', surname: '', status: 'already_invited', reason: 'already_candidate', candidateId: signedUp.body.data.candidateId, invitationUrl: null });
      expect(await emailsTo(address)).toHaveLength(1);
      expect(await emailsTo(open)).toHaveLength(0);
    });

    it.each([
      ['missing', {}, ''],
      ['empty', { email: '' }, ''],
      ['white space', { email: '   ' }, ''],
      ['no @', { email: 'plainaddress.example.com' }, 'plainaddress.example.com'],
      ['two @', { email: 'a@b@example.com' }, 'a@b@example.com'],
      ['empty local part', { email: '@example.com' }, '@example.com'],
      ['domain without a dot', { email: 'someone@localhost' }, 'someone@localhost'],
      ['empty domain label', { email: 'someone@example..com' }, 'someone@example..com'],
      ['inner space', { email: 'some one@example.com' }, 'some one@example.com'],
      ['255 characters', { email: `${'a'.repeat(243)}@example.com` }, `${'a'.repeat(243)}@example.com`],
      ['a number', { email: 42 }, ''],
      ['null', { email: null }, ''],
      ['a list', { email: ['a@example.com'] }, ''],
      ['an object', { email: { address: 'a@example.com' } }, ''],
    ])('failed / invalid_email: %s', async (_label, entry, shown) => {
      const answer = await invite(service, ws.live, assessment.id, [{ ...entry, firstName: 'F', surname: 'S' }]);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        data: [{ email: shown, firstName: 'F', surname: 'S', status: 'failed', reason: 'invalid_email', candidateId: null, invitationUrl: null }],
        meta: { assessmentId: assessment.id, invited: 0, alreadyInvited: 0, failed: 1 },
      });
    });

    it('accepts an address of exactly 254 characters', async () => {
      const address = `${'b'.repeat(242)}@example.com`;
      expect(address).toHaveLength(254);
      const answer = await invite(service, ws.live, assessment.id, [{ email: address }]);
      expect(answer.body.data[0]).toMatchObject({ email: address, status: 'invited' });
    });

    it.each([
      ['firstName a number', { firstName: 5 }, { firstName: '', surname: '' }],
      ['firstName null', { firstName: null }, { firstName: '', surname: '' }],
      ['surname null', { surname: null, firstName: 'Kept' }, { firstName: 'Kept', surname: '' }],
      ['surname true', { surname: true }, { firstName: '', surname: '' }],
      ['firstName an object', { firstName: { first: 'A' } }, { firstName: '', surname: '' }],
      ['firstName a list', { firstName: ['A'] }, { firstName: '', surname: '' }],
      ['firstName of 256 characters', { firstName: 'f'.repeat(256) }, { firstName: 'f'.repeat(256), surname: '' }],
      ['surname of 256 characters', { surname: 's'.repeat(256) }, { firstName: '', surname: 's'.repeat(256) }],
    ])('failed / invalid_name: %s', async (_label, names, shown) => {
      const address = email('badname');
      const answer = await invite(service, ws.live, assessment.id, [{ email: address, ...names }]);
      expect(answer.body).toEqual({
        data: [{ email: address, ...shown, status: 'failed', reason: 'invalid_name', candidateId: null, invitationUrl: null }],
        meta: { assessmentId: assessment.id, invited: 0, alreadyInvited: 0, failed: 1 },
      });
      expect(await emailsTo(address)).toHaveLength(0);
      // Nothing was recorded: the address can be invited properly afterwards.
      expect((await invite(service, ws.live, assessment.id, [{ email: address }])).body.data[0].status).toBe('invited');
    });

    it('accepts names of exactly 255 characters and empty names', async () => {
      const answer = await invite(service, ws.live, assessment.id, [
        { email: email('long'), firstName: 'f'.repeat(255), surname: 's'.repeat(255) },
        { email: email('empty'), firstName: '', surname: '' },
      ]);
      expect(answer.body.data.map((entry: { status: string }) => entry.status)).toEqual(['invited', 'invited']);
      expect(answer.body.data[0]).toMatchObject({ firstName: 'f'.repeat(255), surname: 's'.repeat(255) });
    });

    it.each([[null], ['text'], [42], [true], [['a@example.com']], [[]]])('failed / invalid_entry for the entry %j, shown with empty fields', async (entry) => {
      const answer = await invite(service, ws.live, assessment.id, [entry]);
      expect(answer.body).toEqual({
        data: [{ email: '', firstName: '', surname: '', status: 'failed', reason: 'invalid_entry', candidateId: null, invitationUrl: null }],
        meta: { assessmentId: assessment.id, invited: 0, alreadyInvited: 0, failed: 1 },
      });
    });

    it('failed / live_candidate (sandbox key, live candidate) and failed / sandbox_candidate (live key, test candidate)', async () => {
      const other = await createAssessment(service, ws.live, { name: 'Second assessment' });
      const live = email('live');
      const test = email('test');
      const liveInvite = await invite(service, ws.live, assessment.id, [{ email: live }]);
      expect((await app.register({ invitationUrl: liveInvite.body.data[0].invitationUrl })).status).toBe(201);
      const testInvite = await invite(service, ws.sandbox, assessment.id, [{ email: test }]);
      expect((await app.register({ invitationUrl: testInvite.body.data[0].invitationUrl })).status).toBe(201);

      const fromSandbox = await invite(service, ws.sandbox, other.id, [{ email: live.toUpperCase(), firstName: 'L' }]);
      expect(fromSandbox.body).toEqual({
        data: [{ email: live, firstName: 'L', surname: '', status: 'failed', reason: 'live_candidate', candidateId: null, invitationUrl: null }],
        meta: { assessmentId: other.id, invited: 0, alreadyInvited: 0, failed: 1 },
      });
      const fromLive = await invite(service, ws.live, other.id, [{ email: test, surname: 'T' }]);
      expect(fromLive.body).toEqual({
        data: [{ email: test, firstName: '', surname: 'T', status: 'failed', reason: 'sandbox_candidate', candidateId: null, invitationUrl: null }],
        meta: { assessmentId: other.id, invited: 0, alreadyInvited: 0, failed: 1 },
      });
      // On the assessment they are registered on, the other mode's key gets the same refusals.
      expect((await invite(service, ws.sandbox, assessment.id, [{ email: live }])).body.data[0]).toMatchObject({ status: 'failed', reason: 'live_candidate' });
      expect((await invite(service, ws.live, assessment.id, [{ email: test }])).body.data[0]).toMatchObject({ status: 'failed', reason: 'sandbox_candidate' });
      // Their own mode's key: already a candidate.
      expect((await invite(service, ws.live, assessment.id, [{ email: live }])).body.data[0]).toMatchObject({ status: 'already_invited', reason: 'already_candidate' });
      // And on the other assessment, their own mode invites them.
      expect((await invite(service, ws.live, other.id, [{ email: live }])).body.data[0]).toMatchObject({ status: 'invited', reason: null });
    });

    it('judges each entry on its own, in order, with one e-mail at most for an address sent twice', async () => {
      const [a, b, c, d] = [email('mix-a'), email('mix-b'), email('mix-c'), email('mix-d')];
      const answer = await invite(service, ws.live, assessment.id, [
        { email: a, firstName: 'A1' },
        'not an object',
        { email: ` ${a.toUpperCase()} `, firstName: 'A2' },
        { email: 'broken' },
        { email: b, firstName: 7 },
        { email: b, firstName: 'B2' },
        { email: c },
        { email: d, surname: 'D' },
        { email: a, surname: 'A3' },
      ]);
      expect(answer.status).toBe(200);
      const url = answer.body.data[0].invitationUrl;
      expect(answer.body.data).toEqual([
        { email: a, firstName: 'A1', surname: '', status: 'invited', reason: null, candidateId: null, invitationUrl: url },
        { email: '', firstName: '', surname: '', status: 'failed', reason: 'invalid_entry', candidateId: null, invitationUrl: null },
        { email: a, firstName: 'A2', surname: '', status: 'already_invited', reason: 'already_invited', candidateId: null, invitationUrl: url },
        { email: 'broken', firstName: '', surname: '', status: 'failed', reason: 'invalid_email', candidateId: null, invitationUrl: null },
        { email: b, firstName: '', surname: '', status: 'failed', reason: 'invalid_name', candidateId: null, invitationUrl: null },
        // A later copy of a failed first copy gets the same outcome.
        { email: b, firstName: 'B2', surname: '', status: 'failed', reason: 'invalid_name', candidateId: null, invitationUrl: null },
        { email: c, firstName: '', surname: '', status: 'invited', reason: null, candidateId: null, invitationUrl: expect.any(String) },
        { email: d, firstName: '', surname: 'D', status: 'invited', reason: null, candidateId: null, invitationUrl: expect.any(String) },
        { email: a, firstName: '', surname: 'A3', status: 'already_invited', reason: 'already_invited', candidateId: null, invitationUrl: url },
      ]);
      expect(answer.body.meta).toEqual({ assessmentId: assessment.id, invited: 3, alreadyInvited: 2, failed: 4 });
      expect(new Set([url, answer.body.data[6].invitationUrl, answer.body.data[7].invitationUrl]).size).toBe(3);
      expect(await emailsTo(a)).toHaveLength(1);
      expect(await emailsTo(b)).toHaveLength(0);
    });

    it('a later copy of an already-candidate address gets the same outcome as the first copy', async () => {
      const address = email('dup-candidate');
      const invited = await invite(service, ws.live, assessment.id, [{ email: address }]);
      const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
      const answer = await invite(service, ws.live, assessment.id, [{ email: address, firstName: 'One' }, { email: address, firstName: 'Two' }]);
      const expected = (firstName: string) => ({ email: address, firstName, surname: '', status: 'already_invited', reason: 'already_candidate', candidateId: registered.body.data.candidateId, invitationUrl: null });
      expect(answer.body.data).toEqual([expected('One'), expected('Two')]);
      expect(answer.body.meta).toEqual({ assessmentId: assessment.id, invited: 0, alreadyInvited: 2, failed: 0 });
    });

    it('takes 100 people in one request', async () => {
      const candidates = Array.from({ length: 100 }, (_, index) => ({ email: email(`hundred${index}`) }));
      const answer = await invite(service, ws.live, assessment.id, candidates);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toHaveLength(100);
      expect(answer.body.meta).toEqual({ assessmentId: assessment.id, invited: 100, alreadyInvited: 0, failed: 0 });
      expect(answer.body.data.map((entry: { email: string }) => entry.email)).toEqual(candidates.map((entry) => entry.email));
    });
  });

  describe('whole-request refusals and their order', () => {
    it.each([
      ['candidates missing', {}],
      ['candidates empty', { candidates: [] }],
      ['candidates null', { candidates: null }],
      ['candidates an object', { candidates: { email: 'a@example.com' } }],
      ['candidates a string', { candidates: 'a@example.com' }],
      ['candidates a number', { candidates: 3 }],
    ])('422 validation_failed: %s', async (_label, body) => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const answer = await api(service, ws.live).post(invitationsPath(assessment.id), body);
      expectError(answer, 422, 'validation_failed');
      expectRateLimitHeaders(answer);
    });

    it('422 too_many_candidates for 101 people, and nobody is invited', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const candidates = Array.from({ length: 101 }, (_, index) => ({ email: `many${index}.${assessment.id}@example.com` }));
      expectError(await invite(service, ws.live, assessment.id, candidates), 422, 'too_many_candidates');
      // Even when most entries are junk.
      expectError(await invite(service, ws.live, assessment.id, Array.from({ length: 101 }, () => 'x')), 422, 'too_many_candidates');
      expect((await invite(service, ws.live, assessment.id, [{ email: candidates[0]?.email }])).body.data[0].status).toBe('invited');
    });

    it.each([['[]'], ['null'], ['"text"'], ['12'], ['{"candidates":'], [''], ['[{"candidates":[]}]']])('400 invalid_json for the body %s', async (raw) => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      expectError(await rawPost(`${service.baseUrl}${invitationsPath(assessment.id)}`, raw, { authorization: `Bearer ${ws.live}`, 'content-type': 'application/json' }), 400, 'invalid_json');
    });

    it('parses the body as JSON whatever the Content-Type', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
        const address = email('ctype');
        const headers: Record<string, string> = { authorization: `Bearer ${ws.live}` };
        if (contentType) headers['content-type'] = contentType;
        const answer = await rawPost(`${service.baseUrl}${invitationsPath(assessment.id)}`, JSON.stringify({ candidates: [{ email: address }] }), headers);
        expect({ contentType, status: answer.status, outcome: answer.body.data?.[0]?.status }).toEqual({ contentType, status: 200, outcome: 'invited' });
      }
    });

    it('403 workspace_unverified until the workspace is verified; nothing is invited meanwhile', async () => {
      const ws = await app.workspace({ verified: false });
      const assessment = await createAssessment(service, ws.live);
      const address = email('unverified');
      const refused = await invite(service, ws.live, assessment.id, [{ email: address }]);
      expectError(refused, 403, 'workspace_unverified');
      expectRateLimitHeaders(refused);
      expectError(await invite(service, ws.sandbox, assessment.id, [{ email: address }]), 403, 'workspace_unverified');
      expect(await emailsTo(address)).toHaveLength(0);
      const verified = await app.call('POST', `/internal/workspaces/${ws.id}/verify`);
      expect(verified.status).toBe(200);
      expect((await invite(service, ws.live, assessment.id, [{ email: address }])).body.data[0].status).toBe('invited');
    });

    it('refuses in the documented order: 400, 404, 409, 422 validation/too many, 403, 422 closed, 422 sandbox_limit', async () => {
      const unverified = await app.workspace({ verified: false });
      const open = await createAssessment(service, unverified.live);
      const closed = await createAssessment(service, unverified.live);
      await app.close(closed.id);
      const url = (id: string) => `${service.baseUrl}${invitationsPath(id)}`;
      const auth = { authorization: `Bearer ${unverified.live}` };

      // 400 invalid_json before 404 and everything else.
      expectError(await rawPost(url('asm_missing'), '[]', { ...auth, 'Idempotency-Key': 'has space' }), 400, 'invalid_json');
      // 400 invalid_idempotency_key before 404.
      expectError(await invite(service, unverified.live, 'asm_missing', [], { 'Idempotency-Key': 'has space' }), 400, 'invalid_idempotency_key');
      // 404 before 422 validation_failed and 403.
      expectError(await invite(service, unverified.live, 'asm_missing', []), 404, 'not_found');
      // 422 validation_failed / too_many_candidates before 403 workspace_unverified and 422 assessment_closed.
      expectError(await invite(service, unverified.live, open.id, []), 422, 'validation_failed');
      expectError(await invite(service, unverified.live, closed.id, []), 422, 'validation_failed');
      expectError(await api(service, unverified.live).post(invitationsPath(open.id), {}), 422, 'validation_failed');
      expectError(await invite(service, unverified.live, closed.id, Array.from({ length: 101 }, (_, index) => ({ email: `o${index}@example.com` }))), 422, 'too_many_candidates');
      // 403 workspace_unverified before 422 assessment_closed.
      expectError(await invite(service, unverified.live, closed.id, [{ email: 'order@example.com' }]), 403, 'workspace_unverified');

      // 409 (idempotency) before 422 validation_failed and 404.
      const verified = await app.workspace();
      const assessment = await createAssessment(service, verified.live);
      const first = await invite(service, verified.live, assessment.id, [{ email: email('order') }], { 'Idempotency-Key': 'order-key' });
      expect(first.status).toBe(200);
      expectError(await invite(service, verified.live, assessment.id, [], { 'Idempotency-Key': 'order-key' }), 409, 'idempotency_key_reused');
      expectError(await api(service, verified.live).post(invitationsPath(assessment.id), { other: true }, { 'Idempotency-Key': 'order-key' }), 409, 'idempotency_key_reused');
      // 404 before 409: the same key on an unknown assessment.
      expectError(await invite(service, verified.live, 'asm_missing', [{ email: 'x@example.com' }], { 'Idempotency-Key': 'order-key' }), 404, 'not_found');
      // 400 before 409.
      expectError(await rawPost(url(assessment.id), '[]', { authorization: `Bearer ${verified.live}`, 'Idempotency-Key': 'order-key' }), 400, 'invalid_json');

      // 422 assessment_closed before 422 sandbox_limit, and 403 before sandbox_limit.
      const full = await app.workspace();
      const target = await createAssessment(service, full.sandbox);
      const filled = await invite(service, full.sandbox, target.id, Array.from({ length: 25 }, (_, index) => ({ email: `fill${index}.${target.id}@example.com` })));
      expect(filled.body.meta.invited).toBe(25);
      expectError(await invite(service, full.sandbox, target.id, [{ email: 'one.more@example.com' }]), 422, 'sandbox_limit');
      expectError(await invite(service, full.sandbox, target.id, []), 422, 'validation_failed');
      await app.close(target.id);
      expectError(await invite(service, full.sandbox, target.id, [{ email: 'one.more@example.com' }]), 422, 'assessment_closed');
    });
  });

  describe('idempotency', () => {
    it('rule 1: same key and body replays the original answer with Idempotent-Replayed: true; nobody is invited twice', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const address = email('idem');
      const body = { candidates: [{ email: address, firstName: 'Idem' }, { email: 'bad' }] };
      const first = await api(service, ws.live).post(invitationsPath(assessment.id), body, { 'Idempotency-Key': 'retry-1' });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(first.body.meta).toEqual({ assessmentId: assessment.id, invited: 1, alreadyInvited: 0, failed: 1 });
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const replay = await api(service, ws.live).post(invitationsPath(assessment.id), body, { 'Idempotency-Key': 'retry-1' });
        expect(replay.status).toBe(200);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.body).toEqual(first.body);
        expect(replay.text).toBe(first.text);
        expectRateLimitHeaders(replay);
      }
      expect(await emailsTo(address)).toHaveLength(1);
      // Without the key the address is judged again: already invited.
      const plain = await api(service, ws.live).post(invitationsPath(assessment.id), body);
      expect(plain.headers.get('idempotent-replayed')).toBeNull();
      expect(plain.body.data[0]).toMatchObject({ status: 'already_invited', reason: 'already_invited', invitationUrl: first.body.data[0].invitationUrl });
    });

    it('rule 1: key order and white space of the body do not matter', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const address = email('order');
      const url = `${service.baseUrl}${invitationsPath(assessment.id)}`;
      const headers = { authorization: `Bearer ${ws.live}`, 'content-type': 'application/json', 'Idempotency-Key': 'canonical' };
      const first = await rawPost(url, `{"candidates":[{"email":"${address}","firstName":"A","surname":"B"}]}`, headers);
      expect(first.status).toBe(200);
      const reordered = await rawPost(url, `\n{ "candidates" : [ { "surname" : "B",\t"firstName": "A", "email": "${address}" } ] }\n`, headers);
      expect(reordered.status).toBe(200);
      expect(reordered.headers.get('idempotent-replayed')).toBe('true');
      expect(reordered.body).toEqual(first.body);
      // Array order is part of the value; a different value is a different body.
      const changed = await rawPost(url, `{"candidates":[{"email":"${address}","firstName":"A","surname":"C"}]}`, headers);
      expectError(changed, 409, 'idempotency_key_reused');
    });

    it('rule 2: the same key with a different body is 409 idempotency_key_reused and invites nobody', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const other = await createAssessment(service, ws.live);
      const [a, b] = [email('reuse-a'), email('reuse-b')];
      expect((await invite(service, ws.live, assessment.id, [{ email: a }], { 'Idempotency-Key': 'k-reuse' })).status).toBe(200);
      const reused = await invite(service, ws.live, assessment.id, [{ email: b }], { 'Idempotency-Key': 'k-reuse' });
      expectError(reused, 409, 'idempotency_key_reused');
      expectRateLimitHeaders(reused);
      // Same body to another path (another assessment) is a different request too.
      expectError(await invite(service, ws.live, other.id, [{ email: a }], { 'Idempotency-Key': 'k-reuse' }), 409, 'idempotency_key_reused');
      expect(await emailsTo(b)).toHaveLength(0);
      expect((await invite(service, ws.live, assessment.id, [{ email: b }])).body.data[0].status).toBe('invited');
      // Keys are case-sensitive and exact.
      expect((await invite(service, ws.live, assessment.id, [{ email: email('case') }], { 'Idempotency-Key': 'K-REUSE' })).status).toBe(200);
    });

    it('rule 4: keys belong to the workspace: two API keys of one workspace share them; other workspaces do not', async () => {
      const ws = await app.workspace();
      const secondKey = (await app.call('POST', `/internal/workspaces/${ws.id}/api-keys`, { mode: 'live' })).body.data;
      const second = `${secondKey.key}:${secondKey.secret}`;
      const assessment = await createAssessment(service, ws.live);
      const address = email('shared');
      const first = await invite(service, ws.live, assessment.id, [{ email: address }], { 'Idempotency-Key': 'shared-key' });
      const replay = await invite(service, second, assessment.id, [{ email: address }], { 'Idempotency-Key': 'shared-key' });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
      expectError(await invite(service, second, assessment.id, [{ email: email('x') }], { 'Idempotency-Key': 'shared-key' }), 409, 'idempotency_key_reused');
      // Another workspace with the same key string starts fresh.
      const otherWs = await app.workspace();
      const otherAssessment = await createAssessment(service, otherWs.live);
      const fresh = await invite(service, otherWs.live, otherAssessment.id, [{ email: address }], { 'Idempotency-Key': 'shared-key' });
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('idempotent-replayed')).toBeNull();
      expect(fresh.body.data[0].status).toBe('invited');
    });

    it('rule 4: a key used with a sandbox key cannot be reused with a live key (and the other way round)', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const address = email('modes');
      const body = [{ email: address }];
      const sandbox = await invite(service, ws.sandbox, assessment.id, body, { 'Idempotency-Key': 'mode-key' });
      expect(sandbox.status).toBe(200);
      expectError(await invite(service, ws.live, assessment.id, body, { 'Idempotency-Key': 'mode-key' }), 409, 'idempotency_key_reused');
      const live = await invite(service, ws.live, assessment.id, [{ email: email('modes-live') }], { 'Idempotency-Key': 'mode-key-2' });
      expect(live.status).toBe(200);
      expectError(await invite(service, ws.sandbox, assessment.id, [{ email: email('modes-live') }], { 'Idempotency-Key': 'mode-key-2' }), 409, 'idempotency_key_reused');
      // The sandbox key itself still replays its own answer.
      const replay = await invite(service, ws.sandbox, assessment.id, body, { 'Idempotency-Key': 'mode-key' });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(sandbox.body);
    });

    it.each([
      ['empty', ''],
      ['a space inside', 'has space'],
      ['a tab', 'tab\there'],
      ['256 characters', 'k'.repeat(256)],
      ['non-ASCII', 'clé-été'],
      ['an emoji', 'key-😀'],
    ])('400 invalid_idempotency_key: %s', async (_label, key) => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const address = email('badkey');
      // Written on a raw socket so that the exact bytes (UTF-8 for non-ASCII) reach the service.
      const answer = await rawHttp(service.baseUrl, 'POST', invitationsPath(assessment.id), {
        authorization: `Bearer ${ws.live}`, 'content-type': 'application/json', 'idempotency-key': key,
      }, JSON.stringify({ candidates: [{ email: address }] }));
      expectError(answer, 400, 'invalid_idempotency_key');
      expect(await emailsTo(address)).toHaveLength(0);
    });

    it('accepts keys of 1 and 255 printable characters', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const printable = Array.from({ length: 94 }, (_, index) => String.fromCharCode(0x21 + index)).join('');
      for (const key of ['x', 'k'.repeat(255), printable]) {
        const body = [{ email: email('goodkey') }];
        const first = await invite(service, ws.live, assessment.id, body, { 'Idempotency-Key': key });
        expect({ key, status: first.status }).toEqual({ key, status: 200 });
        const again = await invite(service, ws.live, assessment.id, body, { 'Idempotency-Key': key });
        expect(again.headers.get('idempotent-replayed')).toBe('true');
      }
    });

    it('a refused request (422, 403) leaves the key unused', async () => {
      const ws = await app.workspace({ verified: false });
      const assessment = await createAssessment(service, ws.live);
      const address = email('unused');
      expectError(await invite(service, ws.live, assessment.id, [], { 'Idempotency-Key': 'unused-key' }), 422, 'validation_failed');
      expectError(await invite(service, ws.live, assessment.id, [{ email: address }], { 'Idempotency-Key': 'unused-key' }), 403, 'workspace_unverified');
      // The same refused request again is refused again, not replayed.
      const again = await invite(service, ws.live, assessment.id, [{ email: address }], { 'Idempotency-Key': 'unused-key' });
      expectError(again, 403, 'workspace_unverified');
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      await app.call('POST', `/internal/workspaces/${ws.id}/verify`);
      const accepted = await invite(service, ws.live, assessment.id, [{ email: address }], { 'Idempotency-Key': 'unused-key' });
      expect(accepted.status).toBe(200);
      expect(accepted.headers.get('idempotent-replayed')).toBeNull();
      expect(accepted.body.data[0].status).toBe('invited');
      // A 404 leaves it unused as well.
      expectError(await invite(service, ws.live, 'asm_missing', [{ email: address }], { 'Idempotency-Key': 'unused-404' }), 404, 'not_found');
      expect((await invite(service, ws.live, assessment.id, [{ email: email('after404') }], { 'Idempotency-Key': 'unused-404' })).status).toBe(200);
    });

    it('/api/v1/... and /v1/... are the same path for a key', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const address = email('alt');
      const first = await api(service, ws.live).post(invitationsPath(assessment.id), { candidates: [{ email: address }] }, { 'Idempotency-Key': 'alt-key' });
      const alt = await api(service, ws.live, '/api').post(invitationsPath(assessment.id), { candidates: [{ email: address }] }, { 'Idempotency-Key': 'alt-key' });
      expect(alt.status).toBe(200);
      expect(alt.headers.get('idempotent-replayed')).toBe('true');
      expect(alt.body).toEqual(first.body);
      expectError(await api(service, ws.live, '/api').post(invitationsPath(assessment.id), { candidates: [{ email: email('alt2') }] }, { 'Idempotency-Key': 'alt-key' }), 409, 'idempotency_key_reused');
      // A query string does not make another path either.
      const query = await api(service, ws.live).post(`${invitationsPath(assessment.id)}?x=1`, { candidates: [{ email: address }] }, { 'Idempotency-Key': 'alt-key' });
      expect(query.status).toBe(200);
      expect(query.headers.get('idempotent-replayed')).toBe('true');
      expect(await emailsTo(address)).toHaveLength(1);
    });

    it('rule 3: concurrent requests with one key: each answer is the one 200 or 409 idempotency_request_in_progress with Retry-After; one invitation', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      /**
       * 25 requests at once with one key. Whether any arrives while the first is still in flight
       * depends on this machine: a client stalled under load once sent the other 24 only after the
       * first had finished (all replays, which is also correct). Each try is checked in full; the
       * scenario is tried again, with a fresh key and address, until one shows requests in flight.
       */
      const attempt = async (round: number): Promise<number> => {
        const key = `in-flight-${round}`;
        const address = email(`inflight${round}`);
        const body = { candidates: [{ email: address }, ...Array.from({ length: 40 }, (_, index) => ({ email: `inflight${round}.${index}.${assessment.id}@example.com` }))] };
        const answers = await Promise.all(Array.from({ length: 25 }, () => api(service, ws.live).post(invitationsPath(assessment.id), body, { 'Idempotency-Key': key })));
        const ok = answers.filter((answer) => answer.status === 200);
        const busy = answers.filter((answer) => answer.status === 409);
        expect(ok.length + busy.length).toBe(25);
        expect(ok.length).toBeGreaterThanOrEqual(1);
        const originals = ok.filter((answer) => answer.headers.get('idempotent-replayed') === null);
        expect(originals).toHaveLength(1);
        const original = originals[0];
        for (const answer of ok) expect(answer.body).toEqual(original?.body);
        expect(original?.body.meta).toEqual({ assessmentId: assessment.id, invited: 41, alreadyInvited: 0, failed: 0 });
        for (const answer of busy) {
          expectError(answer, 409, 'idempotency_request_in_progress');
          expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        }
        expect(await emailsTo(address)).toHaveLength(1);
        // Afterwards the key replays.
        const later = await api(service, ws.live).post(invitationsPath(assessment.id), body, { 'Idempotency-Key': key });
        expect(later.headers.get('idempotent-replayed')).toBe('true');
        expect(later.body).toEqual(original?.body);
        return busy.length;
      };
      let busy = 0;
      for (let round = 0; round < 3 && busy === 0; round += 1) busy = await attempt(round);
      expect(busy).toBeGreaterThanOrEqual(1);
    });
  });

  describe('concurrency', () => {
    it('50 concurrent requests for one address give exactly one invited', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const address = email('race');
      const secondKey = (await app.call('POST', `/internal/workspaces/${ws.id}/api-keys`, { mode: 'live' })).body.data;
      const credentials = [ws.live, `${secondKey.key}:${secondKey.secret}`];
      const answers = await Promise.all(Array.from({ length: 50 }, (_, index) =>
        invite(service, credentials[index % 2] as string, assessment.id, [{ email: index % 3 === 0 ? address.toUpperCase() : address, firstName: `N${index}` }])));
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
      const statuses = answers.map((answer) => answer.body.data[0].status);
      expect(statuses.filter((status) => status === 'invited')).toHaveLength(1);
      expect(statuses.filter((status) => status === 'already_invited')).toHaveLength(49);
      const urls = new Set(answers.map((answer) => answer.body.data[0].invitationUrl));
      expect(urls.size).toBe(1);
      expect(await emailsTo(address)).toHaveLength(1);
      const stream = await app.call('GET', `/internal/streams/assessment-${assessment.id}`);
      expect(stream.body.data.filter((event: { type: string }) => event.type === 'CandidateInvited')).toHaveLength(1);
    });

    it('concurrent sandbox requests never use more than the 25 places', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.sandbox);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, index) =>
        invite(service, ws.sandbox, assessment.id, [0, 1, 2, 3].map((slot) => ({ email: `burst${index}-${slot}.${assessment.id}@example.com` })))));
      const ok = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status === 422);
      expect(ok.length + refused.length).toBe(10);
      expect(ok).toHaveLength(6);
      for (const answer of refused) expectError(answer, 422, 'sandbox_limit');
      expect(ok.reduce((sum, answer) => sum + answer.body.meta.invited, 0)).toBe(24);
      expect(await remaining(ws.sandbox)).toBe(1);
    });
  });

  describe('sandbox allowance', () => {
    it('each new sandbox invitation uses a place; a request exceeding what is left invites nobody; already_invited and failed use none', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.live);
      const addresses = Array.from({ length: 30 }, (_, index) => `sbx${index}.${assessment.id}@example.com`);
      const first = await invite(service, ws.sandbox, assessment.id, addresses.slice(0, 20).map((address) => ({ email: address })));
      expect(first.body.meta).toEqual({ assessmentId: assessment.id, invited: 20, alreadyInvited: 0, failed: 0 });
      expect(await remaining(ws.sandbox)).toBe(5);
      expect(await remaining(ws.live)).toBe(5);
      // Live invitations use no place.
      expect((await invite(service, ws.live, assessment.id, [{ email: email('live-no-place') }])).body.meta.invited).toBe(1);
      expect(await remaining(ws.sandbox)).toBe(5);

      // Six new ones when five are left: refused whole, nobody invited.
      const tooMany = await invite(service, ws.sandbox, assessment.id, addresses.slice(20, 26).map((address) => ({ email: address })));
      expectError(tooMany, 422, 'sandbox_limit');
      expectRateLimitHeaders(tooMany);
      expect(await emailsTo(addresses[20] as string)).toHaveLength(0);
      expect(await remaining(ws.sandbox)).toBe(5);

      // Five new plus already invited and failed entries: fits.
      const fits = await invite(service, ws.sandbox, assessment.id, [
        ...addresses.slice(20, 25).map((address) => ({ email: address })),
        { email: addresses[0] }, { email: addresses[1] }, { email: 'broken' }, 7, { email: addresses[20] },
      ]);
      expect(fits.status).toBe(200);
      expect(fits.body.meta).toEqual({ assessmentId: assessment.id, invited: 5, alreadyInvited: 3, failed: 2 });
      expect(await remaining(ws.sandbox)).toBe(0);
      expect(await remaining(ws.live)).toBe(0);

      // Nothing left: entries that need no place still answer 200.
      const noPlaceNeeded = await invite(service, ws.sandbox, assessment.id, [{ email: addresses[3] }, { email: 'nope' }]);
      expect(noPlaceNeeded.status).toBe(200);
      expect(noPlaceNeeded.body.meta).toEqual({ assessmentId: assessment.id, invited: 0, alreadyInvited: 1, failed: 1 });
      expectError(await invite(service, ws.sandbox, assessment.id, [{ email: addresses[26] }]), 422, 'sandbox_limit');
      // A live key still invites.
      expect((await invite(service, ws.live, assessment.id, [{ email: addresses[27] }])).body.meta.invited).toBe(1);
      // Another workspace has its own allowance.
      const other = await app.workspace();
      expect(await remaining(other.sandbox)).toBe(25);
    });

    it('deleting a test candidate does not give the place back', async () => {
      const ws = await app.workspace();
      const assessment = await createAssessment(service, ws.sandbox);
      const address = email('deleted');
      const invited = await invite(service, ws.sandbox, assessment.id, [{ email: address }]);
      const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
      expect(await remaining(ws.sandbox)).toBe(24);
      expect((await app.call('DELETE', `/internal/candidates/${registered.body.data.candidateId}`)).status).toBe(204);
      expect(await remaining(ws.sandbox)).toBe(24);
      // The address may be invited again, as a new person, using a new place.
      const again = await invite(service, ws.sandbox, assessment.id, [{ email: address }]);
      expect(again.body.data[0]).toMatchObject({ status: 'invited', reason: null });
      expect(again.body.data[0].invitationUrl).not.toBe(invited.body.data[0].invitationUrl);
      expect(await remaining(ws.sandbox)).toBe(23);
    });
  });

  describe('simulated time: deadlines and the 30-day window (runs last: it moves the clock)', () => {
    it('past its deadline an assessment refuses invitations with 422 assessment_closed; after 30 days sandbox places return', async () => {
      const ws = await app.workspace();
      const unverified = await app.workspace({ verified: false });
      const today = await domainToday(service, ws.live);
      const dueToday = await createAssessment(service, ws.live, { name: 'Due today', deadline: today });
      const dueTomorrow = await createAssessment(service, ws.live, { name: 'Due tomorrow', deadline: addDays(today, 1) });
      const unverifiedDue = await createAssessment(service, unverified.live, { name: 'Unverified due', deadline: today });
      const sandboxTarget = await createAssessment(service, ws.sandbox, { name: 'Sandbox window' });
      // On the deadline day itself invitations are taken.
      expect((await invite(service, ws.live, dueToday.id, [{ email: email('on-deadline') }])).body.meta.invited).toBe(1);
      const used = await invite(service, ws.sandbox, sandboxTarget.id, Array.from({ length: 25 }, (_, index) => ({ email: `window${index}.${sandboxTarget.id}@example.com` })));
      expect(used.body.meta.invited).toBe(25);
      expectError(await invite(service, ws.sandbox, sandboxTarget.id, [{ email: email('over') }]), 422, 'sandbox_limit');

      // One day later (UTC): past the deadline.
      const secondsToTomorrow = Math.ceil((Date.parse(`${addDays(today, 1)}T00:00:00.000Z`) - Date.parse((await api(service, ws.live).post('/v1/assessments', { name: 'now', tests: ['english-b2'] })).body.data.createdAt)) / 1000) + 5;
      const moved = await app.call('POST', '/internal/clock', { advanceSeconds: secondsToTomorrow });
      expect(moved.status).toBe(200);
      expect(moved.body.data.now.slice(0, 10)).toBe(addDays(today, 1));
      const refused = await invite(service, ws.live, dueToday.id, [{ email: email('after-deadline') }]);
      expectError(refused, 422, 'assessment_closed');
      expectError(await invite(service, ws.sandbox, dueToday.id, [{ email: email('after-deadline') }]), 422, 'assessment_closed');
      // Past its deadline it stays active.
      expect((await api(service, ws.live).get(`/v1/assessments/${dueToday.id}`)).body.data).toMatchObject({ status: 'active', deadline: today });
      // Tomorrow's deadline is today now: still open.
      expect((await invite(service, ws.live, dueTomorrow.id, [{ email: email('due-tomorrow') }])).body.meta.invited).toBe(1);
      // Order: 422 validation_failed before 403 before 422 assessment_closed.
      expectError(await invite(service, unverified.live, unverifiedDue.id, [{ email: email('u') }]), 403, 'workspace_unverified');
      expectError(await invite(service, unverified.live, unverifiedDue.id, []), 422, 'validation_failed');
      // A deadline of yesterday (in simulated time) is refused at creation.
      expectError(await api(service, ws.live).post('/v1/assessments', { name: 'Late', tests: ['english-b2'], deadline: today }), 422, 'validation_failed');
      // Still inside the 30-day window: no places.
      expect(await remaining(ws.sandbox)).toBe(0);

      // 30 days after the places were used they return.
      const month = await app.call('POST', '/internal/clock', { advanceSeconds: 30 * 86_400 });
      expect(month.status).toBe(200);
      expect(await remaining(ws.sandbox)).toBe(25);
      expect(await remaining(ws.live)).toBe(25);
      const back = await invite(service, ws.sandbox, sandboxTarget.id, [{ email: email('back') }, { email: `window0.${sandboxTarget.id}@example.com` }]);
      expect(back.status).toBe(200);
      expect(back.body.meta).toEqual({ assessmentId: sandboxTarget.id, invited: 1, alreadyInvited: 1, failed: 0 });
      expect(await remaining(ws.sandbox)).toBe(24);
    });
  });
});
