import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ReadsWorld, SLUGS, ids, type KeyPool, type Workspace } from './support/reads-world.js';

/** Cursors are opaque and signed (API 4.2); keyset paging neither skips nor repeats while rows are created. */
jest.setTimeout(60_000);

const [FIRST, SECOND, THIRD] = SLUGS;

let world: ReadsWorld;
let ws: Workspace;
let live: KeyPool;
let A: { id: string };
let B: { id: string };
let people = 0;

const enc = encodeURIComponent;
const newPerson = async (assessmentId: string, pool: KeyPool = live): Promise<string> => {
  people += 1;
  return world.candidate(pool, assessmentId, { email: `p${people}@example.com`, firstName: `P${people}`, surname: 'Pager' });
};
const cursorError = async (path: string) => {
  const answer = await live.get(path);
  return { status: answer.status, body: answer.body };
};
const invalidCursor = { status: 400, body: { error: { code: 'invalid_cursor', message: expect.any(String) } } };

/** Every page fetched with `limit`, `between` run after each page but the last; returns the ids in the order seen. */
const pageThrough = async (
  pool: KeyPool,
  path: string,
  between: (page: number, seenSoFar: readonly string[]) => Promise<void>,
): Promise<{ seen: string[]; pages: number }> => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const body = await pool.ok(cursor === null ? path : `${path}&cursor=${enc(cursor)}`);
    pages += 1;
    seen.push(...ids(body.data));
    cursor = body.meta.nextCursor;
    if (cursor !== null) await between(pages, seen);
  } while (cursor !== null && pages < 100);
  return { seen, pages };
};

beforeAll(async () => {
  world = await ReadsWorld.start();
  ws = await world.workspace({ name: 'Pages & Co', keys: 4 });
  live = ws.live;
  A = await world.assessment(live, 'Paging A', [FIRST, SECOND, THIRD]);
  B = await world.assessment(live, 'Paging B', [FIRST]);
  for (let i = 0; i < 7; i += 1) await newPerson(A.id);
});

afterAll(async () => {
  await world?.stop();
});

describe('cursors are opaque and signed', () => {
  let cursor: string;
  let resultsCursor: string;

  beforeAll(async () => {
    const page = await live.ok('/v1/candidates?limit=2');
    cursor = page.meta.nextCursor;
    const someone = page.data[0].id;
    await world.complete(someone, A.id, FIRST);
    await world.complete(someone, A.id, SECOND);
    resultsCursor = (await live.ok('/v1/results?limit=1')).meta.nextCursor;
  });

  it('accepts the cursor it issued, unchanged, as often as it is sent', async () => {
    expect(typeof cursor).toBe('string');
    const once = await live.ok(`/v1/candidates?limit=2&cursor=${enc(cursor)}`);
    const twice = await live.ok(`/v1/candidates?limit=2&cursor=${enc(cursor)}`);
    expect(once).toEqual(twice);
    expect(once.data).toHaveLength(2);
  });

  it('is the same cursor under the second base address (/api)', async () => {
    const direct = await live.ok(`/v1/candidates?limit=2&cursor=${enc(cursor)}`);
    expect(await live.on('/api').ok(`/v1/candidates?limit=2&cursor=${enc(cursor)}`)).toEqual(direct);
    const viaAlt = await live.on('/api').ok('/v1/candidates?limit=2');
    expect(ids((await live.ok(`/v1/candidates?limit=2&cursor=${enc(viaAlt.meta.nextCursor)}`)).data)).toEqual(ids(direct.data));
  });

  it('refuses an edited cursor with 400 invalid_cursor', async () => {
    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    const edits = [
      flip(cursor, 0), flip(cursor, Math.floor(cursor.length / 2)), flip(cursor, cursor.length - 1),
      cursor.slice(0, -1), `${cursor}A`, cursor.slice(1), cursor.toUpperCase(), cursor.split('').reverse().join(''),
    ];
    for (const edited of edits) {
      expect(edited).not.toBe(cursor);
      expect(await cursorError(`/v1/candidates?limit=2&cursor=${enc(edited)}`)).toEqual(invalidCursor);
    }
  });

  it('refuses a cursor whose readable position was edited, the signature kept', async () => {
    const bytes = Buffer.from(cursor, 'base64url');
    const text = bytes.toString('latin1');
    // Where the cursor carries readable JSON after its signature, move every digit in it and keep the signature.
    const start = text.lastIndexOf('{"');
    if (start > 0) {
      const edited = Buffer.concat([bytes.subarray(0, start), Buffer.from(text.slice(start).replace(/[0-8]/g, (d) => String(Number(d) + 1)), 'latin1')]);
      expect(edited.equals(bytes)).toBe(false);
      expect(await cursorError(`/v1/candidates?limit=2&cursor=${edited.toString('base64url')}`)).toEqual(invalidCursor);
    }
    const forged = Buffer.from(JSON.stringify({ t: '2000-01-01T00:00:00.000Z', id: 'x' })).toString('base64url');
    expect(await cursorError(`/v1/candidates?limit=2&cursor=${forged}`)).toEqual(invalidCursor);
  });

  it('refuses a cursor from another list', async () => {
    expect(typeof resultsCursor).toBe('string');
    expect(await cursorError(`/v1/candidates?limit=1&cursor=${enc(resultsCursor)}`)).toEqual(invalidCursor);
    expect(await cursorError(`/v1/results?limit=2&cursor=${enc(cursor)}`)).toEqual(invalidCursor);
    await world.assessment(live, 'Paging C', [FIRST]);
    const assessmentsCursor = (await live.ok('/v1/assessments?limit=1')).meta.nextCursor;
    expect(typeof assessmentsCursor).toBe('string');
    expect(await cursorError(`/v1/candidates?limit=2&cursor=${enc(assessmentsCursor)}`)).toEqual(invalidCursor);
    expect(await cursorError(`/v1/assessments?limit=1&cursor=${enc(cursor)}`)).toEqual(invalidCursor);
  });

  it('refuses garbage', async () => {
    for (const garbage of ['', 'abc', 'null', '0', '%00', '%E2%9C%93', 'eyJ0IjoiMjAyNiJ9', 'x'.repeat(600), '====']) {
      expect({ garbage, ...(await cursorError(`/v1/candidates?cursor=${garbage}`)) }).toEqual({ garbage, ...invalidCursor });
      expect({ garbage, ...(await cursorError(`/v1/results?cursor=${garbage}`)) }).toEqual({ garbage, ...invalidCursor });
    }
  });
});

describe('keyset stability', () => {
  it('candidates: new people registering between pages are neither seen nor push rows into a repeat', async () => {
    const before = ids(await live.all('/v1/candidates?limit=100'));
    expect(before.length).toBeGreaterThanOrEqual(7);
    const { seen, pages } = await pageThrough(live, '/v1/candidates?limit=2', async () => {
      await newPerson(A.id);
    });
    expect(pages).toBe(Math.ceil(before.length / 2));
    expect(seen).toEqual(before);
    const after = ids(await live.all('/v1/candidates?limit=100'));
    expect(after.length).toBe(before.length + pages - 1);
    expect(after.slice(pages - 1)).toEqual(before);
  });

  it('candidates: changes to people already listed (tests, unlocks, another assessment) move nothing', async () => {
    const before = ids(await live.all(`/v1/candidates?assessment=${A.id}&limit=100`));
    const { seen } = await pageThrough(live, `/v1/candidates?assessment=${A.id}&limit=3`, async (_page, seenSoFar) => {
      for (const person of seenSoFar.slice(-2)) {
        const done = await world.complete(person, A.id, FIRST);
        await world.unlock(done.resultId);
        const email = (await live.ok(`/v1/candidates/${person}`)).data.email;
        expect(await world.candidate(live, B.id, { email })).toBe(person);
      }
    });
    expect(seen).toEqual(before);
  });

  it('rows of one burst, results finished at the same millisecond included, are each listed once, page by page', async () => {
    const emails = Array.from({ length: 8 }, (_, i) => `burst${i}@example.com`);
    const invited = (await live.post(`/v1/assessments/${B.id}/invitations`, { candidates: emails.map((email) => ({ email })) })).body.data;
    const registered = await Promise.all(invited.map((entry: any) => world.internal.register({ invitationUrl: entry.invitationUrl })));
    const burst: string[] = registered.map((answer) => answer.body.data.candidateId);
    // Different candidates finish at once: completion times may tie, ties are ordered by id.
    await Promise.all(burst.map((person) => world.complete(person, B.id, FIRST)));
    const candidates = await live.all('/v1/candidates?limit=100');
    for (let i = 1; i < candidates.length; i += 1) expect(candidates[i - 1].createdAt >= candidates[i].createdAt).toBe(true);
    const results = await live.all('/v1/results?limit=100');
    for (let i = 1; i < results.length; i += 1) {
      const [a, b] = [results[i - 1], results[i]];
      expect(a.completedAt < b.completedAt || (a.completedAt === b.completedAt && a.id < b.id)).toBe(true);
    }
    const descending = ids(await live.all('/v1/results?limit=100&order=desc'));
    expect(descending).toEqual(ids(results).reverse());
    for (const limit of [1, 2, 5]) {
      expect((await pageThrough(live, `/v1/candidates?limit=${limit}`, async () => undefined)).seen).toEqual(ids(candidates));
      expect((await pageThrough(live, `/v1/results?limit=${limit}`, async () => undefined)).seen).toEqual(ids(results));
      expect((await pageThrough(live, `/v1/results?limit=${limit}&order=desc`, async () => undefined)).seen).toEqual(descending);
    }
  });

  it('results, oldest first: tests finished between pages come at the end, each once', async () => {
    const before = ids(await live.all('/v1/results?limit=100'));
    expect(before.length).toBeGreaterThanOrEqual(6);
    const onA = ids(await live.all(`/v1/candidates?assessment=${A.id}&limit=100`));
    const added: string[] = [];
    const { seen } = await pageThrough(live, '/v1/results?limit=2', async (page) => {
      if (page > 3) return;
      // Someone on A finishes A's third test.
      for (const person of onA) {
        const done = await world.complete(person, A.id, THIRD).catch(() => null);
        if (done) {
          added.push(done.resultId);
          break;
        }
      }
    });
    expect(added).toHaveLength(3);
    const after = ids(await live.all('/v1/results?limit=100'));
    expect(after).toHaveLength(before.length + 3);
    expect(new Set(after)).toEqual(new Set([...before, ...added]));
    expect(seen).toEqual(after);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('results, newest first: tests finished between pages are not seen, nothing repeats', async () => {
    const before = ids(await live.all('/v1/results?limit=100&order=desc'));
    let added = 0;
    const { seen } = await pageThrough(live, '/v1/results?limit=3&order=desc', async () => {
      await world.complete(await newPerson(B.id), B.id, FIRST);
      added += 1;
    });
    expect(added).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual(before);
    expect((await live.all('/v1/results?limit=100')).length).toBe(before.length + added);
  });

  it('results with since: unlocks between pages move nothing', async () => {
    const all = await live.all('/v1/results?limit=100');
    const since = all[2].completedAt as string;
    const before = ids(all.filter((row) => row.completedAt >= since));
    const { seen } = await pageThrough(live, `/v1/results?since=${enc(since)}&limit=2`, async (page) => {
      await world.unlock(before[page - 1]!);
    });
    expect(seen).toEqual(before);
  });

  it('test candidates deleted between pages leave no hole in what remains', async () => {
    const S = await world.assessment(ws.sandbox, 'Sandbox paging', [FIRST]);
    const made: string[] = [];
    for (let i = 0; i < 7; i += 1) made.push(await world.candidate(ws.sandbox, S.id, { email: `sbx${i}@example.com` }));
    const before = ids(await ws.sandbox.all('/v1/candidates?limit=100'));
    expect(before).toEqual([...made].reverse());
    const deletedUnseen: string[] = [];
    const { seen } = await pageThrough(ws.sandbox, '/v1/candidates?limit=2', async (_page, seenSoFar) => {
      // Delete the last row of the page just read (the cursor's own position) and the next row not yet read.
      const lastSeen = seenSoFar[seenSoFar.length - 1]!;
      const ahead = before.find((id) => !seenSoFar.includes(id) && !deletedUnseen.includes(id));
      expect((await world.internal.call('DELETE', `/internal/candidates/${lastSeen}`)).status).toBe(204);
      if (ahead !== undefined) {
        expect((await world.internal.call('DELETE', `/internal/candidates/${ahead}`)).status).toBe(204);
        deletedUnseen.push(ahead);
      }
    });
    expect(deletedUnseen.length).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual(before.filter((id) => !deletedUnseen.includes(id)));
  });

  it('meta.nextCursor is null on the last page, also when the rows fill it exactly', async () => {
    const total = (await live.all('/v1/candidates?limit=100')).length;
    const exact = await live.ok(`/v1/candidates?limit=${total}`);
    expect(exact.data).toHaveLength(total);
    expect(exact.meta.nextCursor).toBeNull();
    const short = await live.ok(`/v1/candidates?limit=${total - 1}`);
    expect(short.data).toHaveLength(total - 1);
    const last = await live.ok(`/v1/candidates?limit=${total - 1}&cursor=${enc(short.meta.nextCursor)}`);
    expect(last.data).toHaveLength(1);
    expect(last.meta.nextCursor).toBeNull();
    const results = (await live.all('/v1/results?limit=100')).length;
    expect((await live.ok(`/v1/results?limit=${results}`)).meta.nextCursor).toBeNull();
    expect((await live.ok(`/v1/results?limit=${results}&order=desc`)).meta.nextCursor).toBeNull();
  });
});
