import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { request } from './support/client.js';
import { ReadsWorld, SLUGS, ids, type Credential, type KeyPool, type Workspace } from './support/reads-world.js';

/**
 * The original endpoint GET /candidates (and GET /api/candidates): its own success and error shapes,
 * page numbers, and 403 for every credential problem (product decisions, Original endpoint).
 */
jest.setTimeout(60_000);

const [FIRST, SECOND] = [SLUGS[0], SLUGS[1]];

let world: ReadsWorld;
let ws: Workspace;
let live: KeyPool;
let A: { id: string };
let B: { id: string };
const people: string[] = []; // oldest first
let c2Results: string[] = [];

const legacyError = (status: number) => ({ status, body: { status: String(status), code: expect.any(String) } });
const answerOf = async (url: string, authorization?: string) => {
  const answer = await request(url, { headers: authorization === undefined ? {} : { authorization } });
  return { status: answer.status, body: answer.body };
};

/** The snake_case row the original endpoint must show for a candidate of GET /v1/candidates/{id}. */
const legacyRow = (c: any) => ({
  id: c.id, email: c.email, first_name: c.firstName, last_name: c.surname, created_at: c.createdAt, updated_at: c.updatedAt, report_url: c.reportUrl,
  assessments: c.assessments.map((a: any) => ({
    id: a.id, name: a.name, status: a.status, completed_at: a.completedAt,
    results: a.results.map((r: any) => ({ id: r.id, test_slug: r.testSlug, test_name: r.testName, completed_at: r.completedAt, unlocked: r.unlocked, score_percentage: r.scorePercentage })),
  })),
});

/** A GET with a Host header of the caller's choosing (fetch does not let one be set). */
const withHost = (url: string, host: string, authorization: string): Promise<{ status: number; body: any }> =>
  new Promise((resolve, reject) => {
    const sent = httpRequest(url, { headers: { host, authorization } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    sent.on('error', reject).end();
  });

const pageParams = (url: string) => {
  const parsed = new URL(url);
  return { at: `${parsed.origin}${parsed.pathname}`, page: parsed.searchParams.get('page'), perPage: parsed.searchParams.get('per_page') };
};

beforeAll(async () => {
  world = await ReadsWorld.start({ SIMULATED_CLOCK: 'true' });
  ws = await world.workspace({ name: 'Legacy Corp', keys: 2 });
  live = ws.live;
  A = await world.assessment(live, 'Legacy A', [FIRST, SECOND]);
  B = await world.assessment(live, 'Legacy B', [FIRST]);
  for (let i = 1; i <= 5; i += 1) {
    await world.advance(60);
    people.push(await world.candidate(live, A.id, { email: `old${i}@example.com`, firstName: `Old${i}`, surname: `Timer${i}` }));
  }
  const c2 = people[1]!;
  await world.start(c2, A.id);
  c2Results = [
    (await world.complete(c2, A.id, FIRST, { scorePercentage: 88, speedCompleted: 100, questionsAnswered: 5, questionsCorrect: 4, questionsIncorrect: 1, questionsTotal: 5 })).resultId,
    (await world.complete(c2, A.id, SECOND, { scorePercentage: 64.5, speedCompleted: 100, questionsAnswered: 5, questionsCorrect: 3, questionsIncorrect: 2, questionsTotal: 5 })).resultId,
  ];
  await world.unlock(c2Results[0]!);
  // The newest person is on two assessments.
  expect(await world.candidate(live, B.id, { email: 'old5@example.com' })).toBe(people[4]);
  // A test candidate, which live reads never show.
  await world.candidate(ws.sandbox, A.id, { email: 'sandbox@example.com' });
});

afterAll(async () => {
  await world?.stop();
});

describe('GET /candidates success', () => {
  it('answers { count, next, previous, results } with snake_case rows, newest first', async () => {
    const body = await live.ok('/candidates');
    expect(Object.keys(body).sort()).toEqual(['count', 'next', 'previous', 'results']);
    expect(body.count).toBe(5);
    expect(body.next).toBeNull();
    expect(body.previous).toBeNull();
    const expected = [];
    for (const id of [...people].reverse()) expected.push(legacyRow((await live.ok(`/v1/candidates/${id}`)).data));
    expect(body.results).toEqual(expected);
    expect(body.results[4 - 1].assessments[0].results).toHaveLength(2);
    expect(body.results[0].assessments.map((a: any) => a.id).sort()).toEqual([A.id, B.id].sort());
    expect(await live.on('/api').ok('/candidates')).toEqual(body);
  });

  it('keeps score_percentage null until the result is unlocked', async () => {
    const rowOf = async () => (await live.ok('/candidates?per_page=100')).results.find((row: any) => row.id === people[1]);
    const before = await rowOf();
    expect(before.assessments[0].status).toBe('completed');
    expect(before.assessments[0].results.map((r: any) => [r.id, r.test_slug, r.unlocked, r.score_percentage])).toEqual([
      [c2Results[0], FIRST, true, 88], [c2Results[1], SECOND, false, null],
    ]);
    await world.unlock(c2Results[1]!);
    const after = await rowOf();
    expect(after.assessments[0].results.map((r: any) => [r.unlocked, r.score_percentage])).toEqual([[true, 88], [true, 64.5]]);
    expect(after.updated_at > before.updated_at).toBe(true);
  });

  it('pages by number: next and previous are absolute links that lead to the neighbouring pages', async () => {
    const newest = [...people].reverse();
    const first = await live.ok('/candidates?per_page=2');
    expect({ count: first.count, ids: ids(first.results), previous: first.previous }).toEqual({ count: 5, ids: newest.slice(0, 2), previous: null });
    expect(pageParams(first.next)).toEqual({ at: `${world.service.baseUrl}/candidates`, page: '2', perPage: '2' });

    const second = (await answerOf(first.next, `Bearer ${live.credential()}`)).body;
    expect({ count: second.count, ids: ids(second.results) }).toEqual({ count: 5, ids: newest.slice(2, 4) });
    expect(pageParams(second.previous)).toEqual({ at: `${world.service.baseUrl}/candidates`, page: '1', perPage: '2' });
    expect(pageParams(second.next)).toEqual({ at: `${world.service.baseUrl}/candidates`, page: '3', perPage: '2' });
    expect(ids((await answerOf(second.previous, `Bearer ${live.credential()}`)).body.results)).toEqual(newest.slice(0, 2));

    const third = (await answerOf(second.next, `Bearer ${live.credential()}`)).body;
    expect({ count: third.count, ids: ids(third.results), next: third.next }).toEqual({ count: 5, ids: newest.slice(4), next: null });
    expect(pageParams(third.previous).page).toBe('2');
  });

  it('sort_order=asc lists oldest first, and its links keep the order', async () => {
    const first = await live.ok('/candidates?per_page=2&sort_by=created_at&sort_order=asc');
    expect(ids(first.results)).toEqual(people.slice(0, 2));
    const second = (await answerOf(first.next, `Bearer ${live.credential()}`)).body;
    expect(ids(second.results)).toEqual(people.slice(2, 4));
    expect(ids((await live.ok('/candidates?sort_order=desc&sort_by=created_at')).results)).toEqual([...people].reverse());
    expect(ids((await live.ok('/candidates?sort_order=asc&page=3&per_page=2')).results)).toEqual(people.slice(4));
  });

  it('links stay on the base the request used (with /api when it came that way)', async () => {
    const first = await live.on('/api').ok('/candidates?per_page=1&page=2');
    expect(pageParams(first.next)).toEqual({ at: `${world.service.baseUrl}/api/candidates`, page: '3', perPage: '1' });
    expect(pageParams(first.previous)).toEqual({ at: `${world.service.baseUrl}/api/candidates`, page: '1', perPage: '1' });
    const followed = (await answerOf(first.next, `Bearer ${live.credential()}`)).body;
    expect(ids(followed.results)).toEqual([people[2]]);
    expect(pageParams(followed.next).at).toBe(`${world.service.baseUrl}/api/candidates`);
  });

  it('links never take the client\'s Host header: an unconfigured one gets the configured address', async () => {
    const port = new URL(world.service.baseUrl).port;
    for (const [host, path] of [['evil.example', '/candidates'], [`evil.example:${port}`, '/api/candidates'], ['127.0.0.1.evil.example', '/candidates']] as const) {
      const answer = await withHost(`${world.service.baseUrl}${path}?per_page=1&page=2`, host, `Bearer ${live.credential()}`);
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
      for (const link of [answer.body.next, answer.body.previous]) {
        expect({ host, at: pageParams(link).at }).toEqual({ host, at: `http://localhost:${port}${path}` });
      }
    }
    // A configured address (API_URL unset: the loopback addresses of PORT) is kept.
    const kept = await withHost(`${world.service.baseUrl}/candidates?per_page=1&page=2`, `[::1]:${port}`, `Bearer ${live.credential()}`);
    expect(pageParams(kept.body.next).at).toBe(`http://[::1]:${port}/candidates`);
  });

  it('a page past the end is 200 with empty results', async () => {
    for (const path of [
      '/candidates?page=4&per_page=2', '/candidates?page=999', '/api/candidates?page=2&per_page=100',
      // Whole numbers too large for a double to hold exactly are still pages past the end.
      '/candidates?page=9007199254740992', '/candidates?page=99999999999999999999&per_page=100',
    ]) {
      const answer = await (path.startsWith('/api') ? live.on('/api').get(path.slice(4)) : live.get(path));
      expect(answer.status).toBe(200);
      expect({ count: answer.body.count, next: answer.body.next, results: answer.body.results }).toEqual({ count: 5, next: null, results: [] });
    }
    const exact = await live.ok('/candidates?page=1&per_page=5');
    expect({ next: exact.next, n: exact.results.length }).toEqual({ next: null, n: 5 });
    expect((await live.ok('/candidates?per_page=100&unknown=1')).results).toHaveLength(5);
  });
});

describe('GET /candidates errors', () => {
  it.each([
    'page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=', 'page=1e1',
    'per_page=0', 'per_page=101', 'per_page=abc', 'per_page=2.5', 'per_page=',
    'sort_by=name', 'sort_by=updated_at', 'sort_by=', 'sort_order=up', 'sort_order=DESC', 'sort_order=',
  ])('400 in its own shape for %s', async (query) => {
    const root = await live.get(`/candidates?${query}`);
    expect({ status: root.status, body: root.body }).toEqual(legacyError(400));
    const alt = await live.on('/api').get(`/candidates?${query}`);
    expect({ status: alt.status, body: alt.body }).toEqual(legacyError(400));
  });

  it('403 in its own shape for every credential problem, on both bases', async () => {
    const [key] = live.keys as [Credential];
    const regenerated = await world.key(ws.id, 'live');
    await world.call('POST', `/internal/api-keys/${regenerated.id}/regenerate`, undefined, 200);
    const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
    const wrong: (string | undefined)[] = [
      undefined, '', 'Bearer', 'Bearer ', `Bearer ${key.key}`, `Bearer ${key.key}:`, `Bearer ${key.key}:wrong-secret`, `Bearer nokey:${key.secret}`,
      `Bearer ${key.secret}:${key.key}`, basic(`${key.key}:wrong`), 'Basic !!!notbase64', `Token ${key.credential}`, key.credential,
      `Bearer ${regenerated.credential}`, basic(regenerated.credential),
    ];
    for (const base of ['', '/api']) {
      for (const authorization of wrong) {
        expect({ authorization, ...(await answerOf(`${world.service.baseUrl}${base}/candidates`, authorization)) }).toEqual({ authorization, ...legacyError(403) });
      }
      expect((await answerOf(`${world.service.baseUrl}${base}/candidates`, basic(key.credential))).status).toBe(200);
      expect((await answerOf(`${world.service.baseUrl}${base}/candidates?page=0`)).status).toBe(403);
    }
    // The versioned API answers the same problems with 401.
    const v1 = await answerOf(`${world.service.baseUrl}/v1/candidates`);
    expect(v1).toEqual({ status: 401, body: { error: { code: 'unauthorized', message: expect.any(String) } } });
  });

  it('429 in its own shape with Retry-After; failed credentials used no place', async () => {
    const key = await world.key(ws.id, 'live');
    const url = `${world.service.baseUrl}/candidates?per_page=1`;
    for (let i = 0; i < 3; i += 1) expect((await answerOf(url, `Bearer ${key.key}:nope`)).status).toBe(403);
    const first = await request(url, { headers: { authorization: `Bearer ${key.credential}` } });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('120');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('119');
    for (let batch = 0; batch < 119; batch += 17) {
      const answers = await Promise.all(Array.from({ length: Math.min(17, 119 - batch) }, () => request(url, { headers: { authorization: `Bearer ${key.credential}` } })));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    }
    for (const base of ['', '/api']) {
      const limited = await request(`${world.service.baseUrl}${base}/candidates`, { headers: { authorization: `Bearer ${key.credential}` } });
      expect({ status: limited.status, body: limited.body }).toEqual(legacyError(429));
      expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('x-ratelimit-limit')).toBe('120');
    }
    const versioned = await request(`${world.service.baseUrl}/v1/candidates`, { headers: { authorization: `Bearer ${key.credential}` } });
    expect({ status: versioned.status, code: versioned.body.error?.code }).toEqual({ status: 429, code: 'rate_limited' });
    // Another key of the workspace is not affected.
    expect((await live.get('/candidates')).status).toBe(200);
  });
});
