import { assessment, assessmentCompleted, at, candidate, deleted, fullJourney, library, testCompleted, unlocked } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { toCompletionView } from './completion.view.js';
import { completionsProjection } from './completions.projection.js';
import { completionsQuery, listCompletions, type ListCompletionsOptions } from './completions.queries.js';
import { indexName, selectSql, tableName } from '../document-store/postgres-sql.js';

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

  it('filters by updated_since (inclusive) on updatedAt, which an unlock moves and completedAt does not', async () => {
    // fullJourney unlocks at start + 10 + i: c1:a1 at minutes 10-11, c2:a2 at 20, c3:a1 at 30-31; c4:a1 (finished at 70) is locked.
    expect(await list({ updatedSince: at(0), order: 'asc' })).toEqual(['c1:a1', 'c2:a2', 'c3:a1', 'c4:a1']);
    expect(await list({ updatedSince: at(0) })).toEqual(['c4:a1', 'c3:a1', 'c2:a2', 'c1:a1']);
    expect(await list({ updatedSince: at(20), order: 'asc' })).toEqual(['c2:a2', 'c3:a1', 'c4:a1']);
    expect(await list({ updatedSince: at(20.001), order: 'asc' })).toEqual(['c3:a1', 'c4:a1']);
    // c5 finishes after c4 did; then c4's first result is unlocked.
    await harness.append([
      testCompleted(live(5), a2, 'c5-r0', library('typing'), at(75)), assessmentCompleted(live(5), a2, at(75)),
      unlocked(live(4), a1, 'c4-r0', at(80)),
    ]);
    await harness.project();
    expect(await list({ since: at(72) })).toEqual(['c5:a2']);
    expect(await list({ since: at(60), order: 'asc' })).toEqual(['c4:a1', 'c5:a2']);
    expect(await list({ updatedSince: at(72), order: 'asc' })).toEqual(['c5:a2', 'c4:a1']);
    expect(await list({ updatedSince: at(80) })).toEqual(['c4:a1']);
    expect(await list({ updatedSince: at(0) })).toEqual(['c4:a1', 'c5:a2', 'c3:a1', 'c2:a2', 'c1:a1']);
    const [c4] = await listCompletions(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 1, updatedSince: at(80) });
    expect(c4 === undefined ? null : toCompletionView(c4, 'http://app')).toMatchObject({ id: 'c4:a1', completedAt: at(70), updatedAt: at(80), unlocked: false });
  });

  it('combines updated_since with since, assessment and limit', async () => {
    expect(await list({ updatedSince: at(0), since: at(12), order: 'asc' })).toEqual(['c2:a2', 'c3:a1', 'c5:a2', 'c4:a1']);
    expect(await list({ updatedSince: at(25), since: at(12), order: 'asc' })).toEqual(['c3:a1', 'c5:a2', 'c4:a1']);
    expect(await list({ updatedSince: at(15), since: at(71), order: 'asc' })).toEqual(['c5:a2']);
    expect(await list({ updatedSince: at(0), assessmentId: 'a1', order: 'asc' })).toEqual(['c1:a1', 'c3:a1', 'c4:a1']);
    expect(await list({ updatedSince: at(0), assessmentId: 'a1', limit: 2 })).toEqual(['c4:a1', 'c3:a1']);
    expect(await list({ updatedSince: at(0), mode: 'sandbox' })).toEqual([]);
    expect(await list({ updatedSince: at(80.001) })).toEqual([]);
  });

  it('answers updated_since from its index, in order (no scan, no sort), with and without an assessment', async () => {
    const client = await harness.database.pool.connect();
    try {
      // A small table would be read sequentially; forbidding it (and sorting) shows whether an index answers the query.
      await client.query('SET enable_seqscan = off');
      await client.query('SET enable_sort = off');
      const table = tableName(completionsProjection.name);
      const planOf = async (options: Partial<ListCompletionsOptions>) => {
        const { text, values } = selectSql(`"${harness.database.schema}"."${table}"`, completionsQuery({ workspaceId: 'w1', mode: 'live', limit: 50, ...options }));
        return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows.map((row) => row['QUERY PLAN']).join('\n');
      };
      const [, , byUpdate, byAssessmentUpdate] = completionsProjection.indexes;
      if (byUpdate === undefined || byAssessmentUpdate === undefined) throw new Error('updatedAt indexes expected');
      for (const order of ['asc', 'desc'] as const) {
        const plain = await planOf({ updatedSince: at(0), order });
        expect(plain).toContain(indexName(table, byUpdate));
        expect(plain).not.toMatch(/Sort/);
        const filtered = await planOf({ updatedSince: at(0), assessmentId: 'a1', since: at(1), order });
        expect(filtered).toContain(indexName(table, byAssessmentUpdate));
        expect(filtered).not.toMatch(/Sort/);
      }
    } finally {
      client.release();
    }
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all(completionsProjection.name);
    await harness.project({ startAfter: null });
    expect(await harness.all(completionsProjection.name)).toEqual(before);
  });
});
