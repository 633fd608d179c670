import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ReadsWorld, SLUGS, ids, type KeyPool, type Workspace } from './support/reads-world.js';

/**
 * The embedded store (`npm start`) keeps the pages it served until their read model changes: every
 * write must still be seen by the very next read, whichever page was read before and how often.
 */
jest.setTimeout(90_000);

const [FIRST, SECOND] = SLUGS;

let world: ReadsWorld;
let ws: Workspace;
let live: KeyPool;

beforeAll(async () => {
  world = await ReadsWorld.start();
  ws = await world.workspace({ name: 'Fresh Reads', keys: 6 });
  live = ws.live;
});

afterAll(async () => {
  await world?.stop();
});

/** Reads each page twice (the second answer may come from memory) and returns the last bodies. */
const readTwice = async (paths: readonly string[]): Promise<any[]> => {
  const bodies: any[] = [];
  for (const path of paths) {
    const first = await live.get(path);
    const second = await live.get(path);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    bodies.push(second.body);
  }
  return bodies;
};

describe('reads after writes on the embedded store', () => {
  it('shows every invitation, registration, completion and unlock at the next read of a page read before', async () => {
    const assessment = await world.assessment(live, 'Fresh', [FIRST, SECOND]);
    const filtered = `/v1/candidates?limit=50&assessment=${assessment.id}`;
    const pages = ['/v1/candidates?limit=50', filtered, '/v1/results?limit=50', '/v1/results?limit=50&order=desc', `/v1/results?limit=50&assessment=${assessment.id}`];
    let [candidates, byAssessment, results, newest] = await readTwice(pages);
    expect(candidates.data).toEqual([]);
    expect(results.data).toEqual([]);

    const people: string[] = [];
    const resultIds: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      people.unshift(await world.candidate(live, assessment.id, { email: `fresh${i}@example.com`, firstName: `F${i}`, surname: 'Reader' }));
      [candidates, byAssessment] = await readTwice(pages.slice(0, 2));
      expect(ids(candidates.data)).toEqual(people);
      expect(ids(byAssessment.data)).toEqual(people);

      const candidateId = people[0]!;
      await world.start(candidateId, assessment.id);
      const { resultId } = await world.complete(candidateId, assessment.id, FIRST);
      resultIds.push(resultId);
      [results, newest] = await readTwice(pages.slice(2, 4));
      expect(ids(results.data)).toEqual(resultIds);
      expect(ids(newest.data)).toEqual([...resultIds].reverse());
      expect(results.data.at(-1).unlocked).toBe(false);
      // The candidate's own row changed too (its progress): the page read before shows it.
      [candidates] = await readTwice(pages.slice(0, 1));
      expect(candidates.data[0].id).toBe(candidateId);

      const unlocked = await world.unlock(resultId);
      [results] = await readTwice(pages.slice(2, 3));
      expect(results.data.at(-1)).toMatchObject({ id: resultId, unlocked: true, unlockedAt: unlocked.unlockedAt });
    }
    const [, , , , ofAssessment] = await readTwice(pages);
    expect(ids(ofAssessment.data)).toEqual(resultIds);
  });
});
