import { completionUpdatedAt } from '#domain';
import { assessment, assessmentCompleted, at, candidate, deleted, testCompleted, unlocked } from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { toCompletionView } from './completion.view.js';
import { completionsProjection, type CompletionDocument } from './completions.projection.js';
import { completionsQuery, type FinishedCompletion } from './completions.queries.js';
import { mongoFilter, mongoIndex, mongoSort } from '../document-store/mongo-filters.js';

const a1 = assessment('w1', 'a1');
const c1 = candidate('w1', 'c1');
const [numerical, verbal] = a1.tests;
if (numerical === undefined || verbal === undefined) throw new Error('fixture needs two tests');
const firstTest = testCompleted(c1, a1, 'r1', numerical, at(2), 64);
const secondTest = testCompleted(c1, a1, 'r2', verbal, at(3), 73);
const tests = [firstTest, secondTest];

const finished = (doc: CompletionDocument | null): FinishedCompletion => {
  if (doc === null || doc.completedAt === null || doc.updatedAt === null) throw new Error(`finished completion expected, got ${JSON.stringify(doc)}`);
  return { ...doc, completedAt: doc.completedAt, updatedAt: doc.updatedAt };
};

describe('completions projection', () => {
  it('accumulates results and stays unfinished (no updatedAt) until the assessment is completed', () => {
    expect(project<CompletionDocument>(completionsProjection, tests, 'c1:a1')).toMatchObject({ id: 'c1:a1', completedAt: null, updatedAt: null, results: [{ id: 'r1' }, { id: 'r2' }] });
    const done = project<CompletionDocument>(completionsProjection, [...tests, assessmentCompleted(c1, a1, at(3))], 'c1:a1');
    expect(done?.completedAt).toBe(at(3));
    expect(done?.updatedAt).toBe(at(3));
  });

  it('shows the API 2.7 shape with the lock rule applied per result', () => {
    const view = toCompletionView(finished(project<CompletionDocument>(completionsProjection, [...tests, assessmentCompleted(c1, a1, at(3)), unlocked(c1, a1, 'r2', at(4))], 'c1:a1')), 'http://app');
    expect(view).toMatchObject({
      id: 'c1:a1', candidate: { id: 'c1', email: 'c1@example.com' }, assessment: { id: 'a1', name: 'Assessment a1' },
      completedAt: at(3), updatedAt: at(4), unlocked: false, reportUrl: 'http://app/candidates/c1/report',
    });
    expect(Object.keys(view)).toEqual(['id', 'candidate', 'assessment', 'completedAt', 'updatedAt', 'unlocked', 'results', 'reportUrl']);
    expect(view.results.map((result) => [result.unlocked, result.scorePercentage])).toEqual([[false, null], [true, 73]]);
    expect(JSON.stringify(view)).not.toContain('64');
    const all = finished(project<CompletionDocument>(completionsProjection, [...tests, assessmentCompleted(c1, a1, at(3)), unlocked(c1, a1, 'r2', at(4)), unlocked(c1, a1, 'r1', at(5))], 'c1:a1'));
    expect(toCompletionView(all, 'http://app')).toMatchObject({ unlocked: true, updatedAt: at(5) });
  });

  it('moves updatedAt with each later unlock, never with a repeated one or an unlock before the completion', () => {
    // Unlocked before the last test was finished: completedAt is the later time.
    const early = finished(project<CompletionDocument>(completionsProjection, [firstTest, unlocked(c1, a1, 'r1', at(2)), secondTest, assessmentCompleted(c1, a1, at(3))], 'c1:a1'));
    expect([early.completedAt, early.updatedAt]).toEqual([at(3), at(3)]);
    const events = [...tests, assessmentCompleted(c1, a1, at(3)), unlocked(c1, a1, 'r1', at(50)), unlocked(c1, a1, 'r1', at(60))];
    const doc = finished(project<CompletionDocument>(completionsProjection, events, 'c1:a1'));
    expect([doc.completedAt, doc.updatedAt]).toEqual([at(3), at(50)]);
    expect(doc.updatedAt).toBe(completionUpdatedAt(doc.completedAt, doc.results));
  });

  it('drops every completion of a deleted test candidate', () => {
    expect(project<CompletionDocument>(completionsProjection, [...tests, ...deleted(c1, [a1], ['r1', 'r2'], at(4))], 'c1:a1')).toBeNull();
  });
});

describe('the updated_since query on MongoDB', () => {
  it('is a filter on updatedAt, a sort by updatedAt and id, and an index with those keys in that order', () => {
    const query = completionsQuery({ workspaceId: 'w1', mode: 'live', assessmentId: 'a1', since: at(1), updatedSince: at(5), order: 'asc', limit: 10 });
    expect(mongoFilter(query.where)).toEqual({
      $and: [{ workspaceId: 'w1' }, { mode: 'live' }, { updatedAt: { $gte: at(5) } }, { assessmentId: 'a1' }, { completedAt: { $gte: at(1) } }],
    });
    expect(mongoSort(query)).toEqual([['updatedAt', 1], ['_id', 1]]);
    const keys = completionsProjection.indexes.map((index) => Object.keys(mongoIndex(index).key));
    expect(keys).toContainEqual(['workspaceId', 'mode', 'updatedAt', '_id']);
    expect(keys).toContainEqual(['workspaceId', 'mode', 'assessmentId', 'updatedAt', '_id']);
  });
});

describe('completionUpdatedAt', () => {
  it('is the later of completedAt and the latest unlock', () => {
    expect(completionUpdatedAt(at(3), [])).toBe(at(3));
    expect(completionUpdatedAt(at(3), [{ unlockedAt: null }, { unlockedAt: at(1) }])).toBe(at(3));
    expect(completionUpdatedAt(at(3), [{ unlockedAt: at(9) }, { unlockedAt: null }, { unlockedAt: at(7) }])).toBe(at(9));
  });
});
