import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ReadsWorld, SLUGS, ids, shift, withOffset, type KeyPool, type Workspace } from './support/reads-world.js';

/**
 * Every query parameter of GET /v1/candidates, /v1/results and /v1/completions. The simulated clock
 * puts one day between the steps below, so every time and every date selects a known set of rows.
 */
jest.setTimeout(60_000);

const DAY = 86_400;
const [FIRST, SECOND] = [SLUGS[0], SLUGS[1]];

let world: ReadsWorld;
let ws: Workspace;
let other: Workspace;
let live: KeyPool;
let A: { id: string };
let B: { id: string };
let foreign: { id: string };
let c1: string;
let c2: string;
let c3: string;
// Result ids: c1 on A (two tests), c2 on B, c3 on B, c2 on A (first test only).
const r: Record<'c1a1' | 'c1a2' | 'c2b' | 'c3b' | 'c2a1', string> = { c1a1: '', c1a2: '', c2b: '', c3b: '', c2a1: '' };
let candidates: any[];
let results: any[];
let completions: any[];

const errorOf = async (path: string) => {
  const answer = await live.get(path);
  return { status: answer.status, code: answer.body?.error?.code, message: typeof answer.body?.error?.message };
};
const invalid = { status: 400, code: 'invalid_parameter', message: 'string' };
const notFound = { status: 404, code: 'not_found', message: 'string' };
const list = async (path: string) => (await live.ok(path)).data;
const candidate = (id: string) => candidates.find((c) => c.id === id);
const result = (id: string) => results.find((row) => row.id === id);
const completion = (id: string) => completions.find((row) => row.id === id);
const enc = encodeURIComponent;

beforeAll(async () => {
  world = await ReadsWorld.start({ SIMULATED_CLOCK: 'true' });
  ws = await world.workspace({ name: 'Filters plc', keys: 3 });
  other = await world.workspace({ name: 'Elsewhere', keys: 1 });
  live = ws.live;
  A = await world.assessment(live, 'Assessment A', [FIRST, SECOND]);
  B = await world.assessment(live, 'Assessment B', [FIRST]);
  foreign = await world.assessment(other.live, 'Foreign', [FIRST]);

  await world.advance(DAY);
  c1 = await world.candidate(live, A.id, { email: 'c1@example.com', firstName: 'Cee', surname: 'One' });
  await world.advance(DAY);
  c2 = await world.candidate(live, A.id, { email: 'c2@example.com', firstName: 'Cee', surname: 'Two' });
  await world.advance(DAY);
  expect(await world.candidate(live, B.id, { email: 'c2@example.com' })).toBe(c2);
  await world.advance(DAY);
  c3 = await world.candidate(live, B.id, { email: 'c3@example.com', firstName: 'Cee', surname: 'Three' });
  await world.advance(DAY);
  r.c1a1 = (await world.complete(c1, A.id, FIRST)).resultId;
  await world.advance(DAY);
  r.c1a2 = (await world.complete(c1, A.id, SECOND)).resultId;
  await world.advance(DAY);
  r.c2b = (await world.complete(c2, B.id, FIRST)).resultId;
  await world.advance(DAY);
  r.c3b = (await world.complete(c3, B.id, FIRST)).resultId;
  await world.advance(DAY);
  await world.unlock(r.c2b);
  await world.advance(DAY);
  await world.unlock(r.c1a1);
  await world.advance(DAY);
  await world.unlock(r.c1a2);
  await world.advance(DAY);
  r.c2a1 = (await world.complete(c2, A.id, FIRST)).resultId;

  candidates = await list('/v1/candidates?limit=100');
  results = await list('/v1/results?limit=100');
  completions = await list('/v1/completions?limit=100');
});

afterAll(async () => {
  await world?.stop();
});

describe('the world the filters read', () => {
  it('has the rows in their default orders', () => {
    expect(ids(candidates)).toEqual([c3, c2, c1]);
    expect(ids(results)).toEqual([r.c1a1, r.c1a2, r.c2b, r.c3b, r.c2a1]);
    expect(ids(completions)).toEqual([`${c3}:${B.id}`, `${c2}:${B.id}`, `${c1}:${A.id}`]);
    // One day between steps: last changes are c2 (its A test), c1 (unlock), c3 (its test).
    expect(candidate(c2).updatedAt).toBe(result(r.c2a1).completedAt);
    expect(candidate(c1).updatedAt).toBe(result(r.c1a2).unlockedAt);
    expect(candidate(c3).updatedAt).toBe(result(r.c3b).completedAt);
  });
});

describe('GET /v1/candidates', () => {
  it('filters by assessment; an unknown or foreign assessment is 404 not_found', async () => {
    expect(ids(await list(`/v1/candidates?assessment=${A.id}`))).toEqual([c2, c1]);
    expect(ids(await list(`/v1/candidates?assessment=${B.id}`))).toEqual([c3, c2]);
    expect(await errorOf('/v1/candidates?assessment=asm_doesnotexist')).toEqual(notFound);
    expect(await errorOf(`/v1/candidates?assessment=${foreign.id}`)).toEqual(notFound);
  });

  it('filters by e-mail address, case-insensitively, alone or with an assessment', async () => {
    expect(await list('/v1/candidates?email=c2%40example.com')).toEqual([candidate(c2)]);
    expect(ids(await list('/v1/candidates?email=C2%40Example.COM'))).toEqual([c2]);
    expect(await list('/v1/candidates?email=nobody%40example.com')).toEqual([]);
    expect(ids(await list(`/v1/candidates?email=C3%40EXAMPLE.COM&assessment=${B.id}`))).toEqual([c3]);
    expect(await list(`/v1/candidates?email=c3%40example.com&assessment=${A.id}`)).toEqual([]);
  });

  it('updated_since is inclusive: a time the API wrote, passed back, selects that row', async () => {
    for (const row of candidates) {
      const expected = ids(candidates.filter((c) => c.updatedAt >= row.updatedAt));
      expect(ids(await list(`/v1/candidates?updated_since=${enc(row.updatedAt)}`))).toEqual(expected);
      expect(ids(await list(`/v1/candidates?updated_since=${enc(shift(row.updatedAt, 1))}`))).toEqual(expected.filter((id) => id !== row.id));
    }
    expect(ids(await list(`/v1/candidates?updated_since=${enc(candidate(c1).updatedAt)}`))).toEqual([c2, c1]);
    // A registration, a finished test and an unlock each count as a change.
    expect(ids(await list(`/v1/candidates?updated_since=${enc(result(r.c3b).completedAt)}`))).toEqual([c3, c2, c1]);
    expect(ids(await list(`/v1/candidates?updated_since=${enc(shift(result(r.c1a2).unlockedAt, 1))}`))).toEqual([c2]);
    expect(await list(`/v1/candidates?updated_since=${enc(shift(candidate(c2).updatedAt, 1))}`)).toEqual([]);
  });

  it('updated_since accepts a date, a date-time with Z, with seconds only, or with an offset (%2B)', async () => {
    const t = candidate(c1).updatedAt as string;
    // A date means midnight UTC: c1 (unlock) and c2 (next day) changed on or after it, c3 days before.
    expect(ids(await list(`/v1/candidates?updated_since=${t.slice(0, 10)}`))).toEqual([c2, c1]);
    expect(ids(await list(`/v1/candidates?updated_since=${t.slice(0, 19)}Z`))).toEqual([c2, c1]);
    const plusTwo = withOffset(t, 120);
    expect(plusTwo).toMatch(/\+02:00$/);
    expect(ids(await list(`/v1/candidates?updated_since=${plusTwo.replace('+', '%2B')}`))).toEqual([c2, c1]);
    expect(ids(await list(`/v1/candidates?updated_since=${withOffset(shift(t, 1), 120).replace('+', '%2B')}`))).toEqual([c2]);
    expect(ids(await list(`/v1/candidates?updated_since=${withOffset(t, -330)}`))).toEqual([c2, c1]);
    expect(ids(await list(`/v1/candidates?updated_since=${withOffset(shift(t, 1), -330)}`))).toEqual([c2]);
  });

  it('limit and cursor page through newest first', async () => {
    const first = await live.ok('/v1/candidates?limit=1');
    expect(ids(first.data)).toEqual([c3]);
    expect(typeof first.meta.nextCursor).toBe('string');
    const second = await live.ok(`/v1/candidates?limit=2&cursor=${enc(first.meta.nextCursor)}`);
    expect(ids(second.data)).toEqual([c2, c1]);
    expect(second.meta.nextCursor).toBeNull();
    expect((await live.ok('/v1/candidates?limit=3')).meta.nextCursor).toBeNull();
    expect((await live.ok('/v1/candidates')).meta).toEqual({ nextCursor: null });
    expect(ids(await live.all(`/v1/candidates?assessment=${B.id}&limit=1`))).toEqual([c3, c2]);
    expect(ids(await live.all(`/v1/candidates?updated_since=${enc(candidate(c1).updatedAt)}&limit=1`))).toEqual([c2, c1]);
  });
});

describe('GET /v1/results', () => {
  it('since is inclusive, oldest first by default, newest first with order=desc', async () => {
    const at = result(r.c2b).completedAt as string;
    expect(ids(await list(`/v1/results?since=${enc(at)}`))).toEqual([r.c2b, r.c3b, r.c2a1]);
    expect(ids(await list(`/v1/results?since=${enc(shift(at, 1))}`))).toEqual([r.c3b, r.c2a1]);
    expect(ids(await list(`/v1/results?since=${enc(at)}&order=asc`))).toEqual([r.c2b, r.c3b, r.c2a1]);
    expect(ids(await list(`/v1/results?since=${enc(at)}&order=desc`))).toEqual([r.c2a1, r.c3b, r.c2b]);
    expect(ids(await list('/v1/results?order=desc'))).toEqual([r.c2a1, r.c3b, r.c2b, r.c1a2, r.c1a1]);
    expect(ids(await list(`/v1/results?since=${result(r.c3b).completedAt.slice(0, 10)}`))).toEqual([r.c3b, r.c2a1]);
    expect(ids(await list(`/v1/results?since=${withOffset(at, 120).replace('+', '%2B')}`))).toEqual([r.c2b, r.c3b, r.c2a1]);
    expect(await list(`/v1/results?since=${enc(shift(result(r.c2a1).completedAt, 1))}`)).toEqual([]);
  });

  it('filters by assessment; unknown or foreign is 404 not_found', async () => {
    expect(ids(await list(`/v1/results?assessment=${B.id}`))).toEqual([r.c2b, r.c3b]);
    expect(ids(await list(`/v1/results?assessment=${A.id}&order=desc`))).toEqual([r.c2a1, r.c1a2, r.c1a1]);
    expect(ids(await list(`/v1/results?assessment=${A.id}&since=${enc(result(r.c1a2).completedAt)}`))).toEqual([r.c1a2, r.c2a1]);
    expect(await errorOf('/v1/results?assessment=nope')).toEqual(notFound);
    expect(await errorOf(`/v1/results?assessment=${foreign.id}`)).toEqual(notFound);
  });

  it('unlocked_since lists unlocked results by unlock time, with limit and no cursor', async () => {
    const first = result(r.c2b).unlockedAt as string;
    // Unlocked in the order c2b, c1a1, c1a2 although completed in the order c1a1, c1a2, c2b.
    expect(await live.ok(`/v1/results?unlocked_since=${enc(first)}`)).toEqual({
      data: [result(r.c2b), result(r.c1a1), result(r.c1a2)], meta: { nextCursor: null },
    });
    expect(await live.ok(`/v1/results?unlocked_since=${enc(first)}&limit=2`)).toEqual({ data: [result(r.c2b), result(r.c1a1)], meta: { nextCursor: null } });
    expect(ids(await list(`/v1/results?unlocked_since=${enc(first)}&order=desc`))).toEqual([r.c1a2, r.c1a1, r.c2b]);
    expect(ids(await list(`/v1/results?unlocked_since=${enc(result(r.c1a1).unlockedAt)}`))).toEqual([r.c1a1, r.c1a2]);
    expect(ids(await list(`/v1/results?unlocked_since=${enc(shift(result(r.c1a1).unlockedAt, 1))}`))).toEqual([r.c1a2]);
    expect(ids(await list(`/v1/results?unlocked_since=${result(r.c1a1).unlockedAt.slice(0, 10)}`))).toEqual([r.c1a1, r.c1a2]);
    expect(ids(await list(`/v1/results?unlocked_since=${withOffset(result(r.c1a2).unlockedAt, 120).replace('+', '%2B')}`))).toEqual([r.c1a2]);
    // With since (completion time) too, both filters apply; with assessment too.
    expect(ids(await list(`/v1/results?unlocked_since=${enc(first)}&since=${enc(result(r.c1a2).completedAt)}`))).toEqual([r.c2b, r.c1a2]);
    expect(ids(await list(`/v1/results?unlocked_since=${enc(first)}&assessment=${A.id}`))).toEqual([r.c1a1, r.c1a2]);
    expect(await list(`/v1/results?unlocked_since=${enc(shift(result(r.c1a2).unlockedAt, 1))}`)).toEqual([]);
  });

  it('limit and cursor page in the requested order', async () => {
    expect(ids(await live.all('/v1/results?limit=2'))).toEqual(ids(results));
    expect(ids(await live.all('/v1/results?limit=2&order=desc'))).toEqual(ids(results).reverse());
    expect(ids(await live.all(`/v1/results?limit=1&since=${enc(result(r.c2b).completedAt)}&order=desc`))).toEqual([r.c2a1, r.c3b, r.c2b]);
  });
});

describe('GET /v1/completions', () => {
  const cid = (candidateId: string, assessmentId: string) => `${candidateId}:${assessmentId}`;

  it('lists finished assessments newest first by default; order=asc reverses', async () => {
    expect(ids(await list('/v1/completions'))).toEqual([cid(c3, B.id), cid(c2, B.id), cid(c1, A.id)]);
    expect(ids(await list('/v1/completions?order=desc'))).toEqual([cid(c3, B.id), cid(c2, B.id), cid(c1, A.id)]);
    expect(ids(await list('/v1/completions?order=asc'))).toEqual([cid(c1, A.id), cid(c2, B.id), cid(c3, B.id)]);
  });

  it('since is inclusive and accepts every time form', async () => {
    const at = completion(cid(c2, B.id)).completedAt as string;
    expect(at).toBe(result(r.c2b).completedAt);
    expect(ids(await list(`/v1/completions?since=${enc(at)}`))).toEqual([cid(c3, B.id), cid(c2, B.id)]);
    expect(ids(await list(`/v1/completions?since=${enc(at)}&order=asc`))).toEqual([cid(c2, B.id), cid(c3, B.id)]);
    expect(ids(await list(`/v1/completions?since=${enc(shift(at, 1))}`))).toEqual([cid(c3, B.id)]);
    expect(ids(await list(`/v1/completions?since=${at.slice(0, 10)}`))).toEqual([cid(c3, B.id), cid(c2, B.id)]);
    expect(ids(await list(`/v1/completions?since=${withOffset(at, 60).replace('+', '%2B')}`))).toEqual([cid(c3, B.id), cid(c2, B.id)]);
    expect(ids(await list(`/v1/completions?since=${withOffset(at, -480)}&order=asc`))).toEqual([cid(c2, B.id), cid(c3, B.id)]);
  });

  it('filters by assessment (unknown or foreign: 404) and cuts at limit in the chosen order', async () => {
    expect(ids(await list(`/v1/completions?assessment=${A.id}`))).toEqual([cid(c1, A.id)]);
    expect(ids(await list(`/v1/completions?assessment=${B.id}&order=asc`))).toEqual([cid(c2, B.id), cid(c3, B.id)]);
    expect(await errorOf('/v1/completions?assessment=asm_unknown')).toEqual(notFound);
    expect(await errorOf(`/v1/completions?assessment=${foreign.id}`)).toEqual(notFound);
    expect(ids(await list('/v1/completions?limit=1'))).toEqual([cid(c3, B.id)]);
    expect(ids(await list('/v1/completions?limit=1&order=asc'))).toEqual([cid(c1, A.id)]);
    expect(ids(await list(`/v1/completions?limit=2&order=asc&since=${enc(completion(cid(c1, A.id)).completedAt)}`))).toEqual([cid(c1, A.id), cid(c2, B.id)]);
    // c2 has finished only one of A's two tests: not a completion.
    expect(ids(await list(`/v1/completions?assessment=${A.id}&limit=100`))).not.toContain(cid(c2, A.id));
  });

  it('updated_since filters and sorts on updatedAt, the later of completedAt and the latest unlock (API 1.2.0)', async () => {
    // c1:A finished on day 7 and was unlocked on days 11 and 12; c2:B finished on day 8, unlocked on day 10; c3:B finished on day 9, locked.
    expect(completion(cid(c1, A.id)).updatedAt).toBe(result(r.c1a2).unlockedAt);
    expect(completion(cid(c2, B.id)).updatedAt).toBe(result(r.c2b).unlockedAt);
    expect(completion(cid(c3, B.id)).updatedAt).toBe(completion(cid(c3, B.id)).completedAt);
    const at = completion(cid(c2, B.id)).updatedAt as string;
    expect(ids(await list(`/v1/completions?updated_since=${enc(at)}`))).toEqual([cid(c1, A.id), cid(c2, B.id)]);
    expect(ids(await list(`/v1/completions?updated_since=${enc(at)}&order=asc`))).toEqual([cid(c2, B.id), cid(c1, A.id)]);
    expect(ids(await list(`/v1/completions?updated_since=${enc(shift(at, 1))}`))).toEqual([cid(c1, A.id)]);
    expect(ids(await list(`/v1/completions?updated_since=${at.slice(0, 10)}`))).toEqual([cid(c1, A.id), cid(c2, B.id)]);
    expect(ids(await list(`/v1/completions?updated_since=${withOffset(at, 60).replace('+', '%2B')}`))).toEqual([cid(c1, A.id), cid(c2, B.id)]);
    // By completedAt the order is c1, c2, c3; by updatedAt it is c3, c2, c1.
    const early = enc(completion(cid(c1, A.id)).completedAt);
    expect(ids(await list(`/v1/completions?updated_since=${early}&order=asc`))).toEqual([cid(c3, B.id), cid(c2, B.id), cid(c1, A.id)]);
    expect(ids(await list(`/v1/completions?updated_since=${early}&since=${enc(completion(cid(c2, B.id)).completedAt)}&order=asc`))).toEqual([cid(c3, B.id), cid(c2, B.id)]);
    expect(ids(await list(`/v1/completions?updated_since=${early}&assessment=${B.id}&limit=1`))).toEqual([cid(c2, B.id)]);
    expect(await errorOf(`/v1/completions?updated_since=${early}&assessment=${foreign.id}`)).toEqual(notFound);
  });
});

describe('invalid parameters', () => {
  const timeParams = [
    ['/v1/candidates', 'updated_since'],
    ['/v1/results', 'since'],
    ['/v1/results', 'unlocked_since'],
    ['/v1/completions', 'since'],
    ['/v1/completions', 'updated_since'],
  ] as const;
  const badTimes = [
    'yesterday', '2026-13-01', '2026-02-30', '2026-10-01T24:00:00Z', '2026-10-01T09:00Z', '01/10/2026', '1759309200',
    // `+` not URL-encoded arrives as a space.
    '2026-10-01T09:00:00+02:00', '2026-10-01T09:00:00.000+02:00',
  ];

  it.each(timeParams)('%s?%s refuses a time that is not ISO 8601 with 400 invalid_parameter', async (path, name) => {
    for (const value of badTimes) {
      expect({ value, ...(await errorOf(`${path}?${name}=${value}`)) }).toEqual({ value, ...invalid });
    }
  });

  it.each(['/v1/candidates', '/v1/results', '/v1/completions'])('%s refuses a limit outside 1-100 or not in digits', async (path) => {
    for (const value of ['0', '101', '-1', 'abc', '1.5', '1e1', '%2B5', '']) {
      expect({ value, ...(await errorOf(`${path}?limit=${value}`)) }).toEqual({ value, ...invalid });
    }
    expect((await live.get(`${path}?limit=100`)).status).toBe(200);
    expect((await live.get(`${path}?limit=1`)).status).toBe(200);
  });

  it('refuses an unknown order', async () => {
    expect(await errorOf('/v1/results?order=newest')).toEqual(invalid);
    expect(await errorOf('/v1/completions?order=oldest')).toEqual(invalid);
  });
});
