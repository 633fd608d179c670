import type { FieldValue } from '../shared/document-store.port.js';
import { assessment, at, candidate, deleted, library, testCompleted, unlocked } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { toResultListView } from './result-list.view.js';
import { resultsProjection, type ResultDocument } from './results.projection.js';
import { listResults, type ListResultsOptions } from './results.queries.js';

const ids = (docs: readonly ResultDocument[]): string[] => docs.map(({ id }) => id);
const strings = (next: FieldValue[] | null): string[] | undefined => next?.map(String);
const a1 = assessment('w1', 'a1');
const a2 = assessment('w1', 'a2', ['typing']);
const [c1, c2, c3] = [1, 2, 3].map((n) => candidate('w1', `c${n}`, 'live'));
const t1 = candidate('w1', 't1', 'sandbox');
const t2 = candidate('w1', 't2', 'sandbox');

describe('results read model (PostgreSQL)', () => {
  let harness: Harness;
  const list = async (options: Partial<ListResultsOptions>) =>
    listResults(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 50, ...options });

  beforeAll(async () => {
    if (c1 === undefined || c2 === undefined || c3 === undefined) throw new Error('fixtures');
    harness = await createHarness('rm_results', [resultsProjection]);
    await harness.append([
      testCompleted(c1, a1, 'r1', library('numerical'), at(10), 50),
      testCompleted(c1, a1, 'r2', library('verbal'), at(11)),
      testCompleted(c2, a2, 'r3', library('typing'), at(11)),
      testCompleted(c3, a1, 'r4', library('numerical'), at(12), 99),
      testCompleted(t1, a1, 'r5', library('numerical'), at(13)),
      testCompleted(t2, a1, 'r6', library('numerical'), at(14)),
      testCompleted(candidate('w2', 'x1'), assessment('w2', 'b1'), 'r7', library('numerical'), at(10)),
      unlocked(t1, a1, 'r5', at(20)),
      unlocked(c2, a2, 'r3', at(25)),
      unlocked(c1, a1, 'r1', at(30)),
      ...deleted(t2, [a1], ['r6'], at(40)),
    ]);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('lists by completion time, oldest first by default, ties by id, one workspace and mode', async () => {
    expect(ids((await list({})).items)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(ids((await list({ order: 'desc' })).items)).toEqual(['r4', 'r3', 'r2', 'r1']);
    expect(ids((await list({ mode: 'sandbox' })).items)).toEqual(['r5']);
  });

  it('filters by since (inclusive) and assessment', async () => {
    expect(ids((await list({ since: at(11) })).items)).toEqual(['r2', 'r3', 'r4']);
    expect(ids((await list({ assessmentId: 'a2' })).items)).toEqual(['r3']);
    expect(ids((await list({ assessmentId: 'a1', since: at(11) })).items)).toEqual(['r2', 'r4']);
  });

  it('with unlocked_since, filters and sorts by unlock time; both filters apply together', async () => {
    expect(ids((await list({ unlockedSince: at(25) })).items)).toEqual(['r3', 'r1']);
    expect(ids((await list({ unlockedSince: at(25), order: 'desc' })).items)).toEqual(['r1', 'r3']);
    expect(ids((await list({ unlockedSince: at(0), since: at(11) })).items)).toEqual(['r3']);
  });

  it('shows scores only for unlocked results', async () => {
    const [r1, , , r4] = (await list({})).items;
    if (r1 === undefined || r4 === undefined) throw new Error('results expected');
    expect(toResultListView(r1, 'http://app')).toMatchObject({ unlocked: true, scorePercentage: 50, candidate: { id: 'c1' }, assessment: { id: 'a1' } });
    expect(toResultListView(r4, 'http://app')).toMatchObject({ unlocked: false, scorePercentage: null, scores: null });
  });

  it('pages forward without skips or repeats while tests are completed', async () => {
    if (c1 === undefined || c3 === undefined) throw new Error('fixtures');
    const first = await list({ limit: 2 });
    expect(ids(first.items)).toEqual(['r1', 'r2']);
    await harness.append([testCompleted(c1, a1, 'r25', library('logic'), at(11)), testCompleted(c3, a1, 'r9', library('verbal'), at(60))]);
    await harness.project();
    const second = await list({ limit: 2, after: strings(first.next) });
    const third = await list({ limit: 2, after: strings(second.next) });
    expect([...ids(second.items), ...ids(third.items)]).toEqual(['r25', 'r3', 'r4', 'r9']);
    expect(third.next).toBeNull();
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all('results');
    await harness.project({ startAfter: null });
    expect(await harness.all('results')).toEqual(before);
  });
});
