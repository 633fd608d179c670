import { assessment, assessmentCompleted, at, candidate, deleted, fullJourney, library, testCompleted } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { toCompletionView } from './completion.view.js';
import { completionsProjection } from './completions.projection.js';
import { listCompletions, type ListCompletionsOptions } from './completions.queries.js';

const a1 = assessment('w1', 'a1');
const a2 = assessment('w1', 'a2', ['typing']);
const live = (n: number) => candidate('w1', `c${n}`, 'live');

describe('completions read model (PostgreSQL)', () => {
  let harness: Harness;
  const list = async (options: Partial<ListCompletionsOptions>) =>
    (await listCompletions(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 50, ...options })).map(({ id }) => id);

  beforeAll(async () => {
    harness = await createHarness('rm_completions', [completionsProjection]);
    const test = candidate('w1', 't1', 'sandbox');
    await harness.append([
      ...fullJourney(live(1), a1, 0),
      ...fullJourney(live(2), a2, 10),
      ...fullJourney(live(3), a1, 20),
      // Unfinished: one test of two.
      testCompleted(live(4), a1, 'c4-r0', library('numerical'), at(30)),
      ...fullJourney(test, a1, 40),
      ...deleted(test, [a1], ['t1-a1-r0', 't1-a1-r1'], at(60)),
      ...fullJourney(candidate('w2', 'x1'), assessment('w2', 'b1'), 0),
    ]);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('lists finished assessments only, newest first by default', async () => {
    expect(await list({})).toEqual(['c3:a1', 'c2:a2', 'c1:a1']);
    expect(await list({ order: 'asc' })).toEqual(['c1:a1', 'c2:a2', 'c3:a1']);
    expect(await list({ mode: 'sandbox' })).toEqual([]);
  });

  it('filters by since (inclusive), assessment and limit', async () => {
    // fullJourney(c2, a2, 10) completes its one test at minute 12.
    expect(await list({ since: at(12), order: 'asc' })).toEqual(['c2:a2', 'c3:a1']);
    expect(await list({ assessmentId: 'a1' })).toEqual(['c3:a1', 'c1:a1']);
    expect(await list({ limit: 1, order: 'asc' })).toEqual(['c1:a1']);
  });

  it('shows the completion with every result unlocked', async () => {
    const [first] = await listCompletions(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 1, order: 'asc' });
    if (first === undefined) throw new Error('completion expected');
    expect(toCompletionView(first, 'http://app')).toMatchObject({
      id: 'c1:a1', completedAt: at(3), unlocked: true, candidate: { id: 'c1' }, assessment: { id: 'a1', name: 'Assessment a1' },
      results: [{ id: 'c1-a1-r0', unlocked: true }, { id: 'c1-a1-r1', unlocked: true }],
    });
  });

  it('keeps an unfinished assessment out until it is completed', async () => {
    await harness.append([testCompleted(live(4), a1, 'c4-r1', library('verbal'), at(70)), assessmentCompleted(live(4), a1, at(70))]);
    await harness.project();
    expect(await list({ since: at(70) })).toEqual(['c4:a1']);
    const [c4] = await listCompletions(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 1, since: at(70) });
    if (c4 === undefined) throw new Error('completion expected');
    expect(toCompletionView(c4, 'http://app')).toMatchObject({ unlocked: false, results: [{ scorePercentage: null }, { scorePercentage: null }] });
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all('completions');
    await harness.project({ startAfter: null });
    expect(await harness.all('completions')).toEqual(before);
  });
});
