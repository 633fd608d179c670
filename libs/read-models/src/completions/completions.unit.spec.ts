import { assessment, assessmentCompleted, at, candidate, deleted, testCompleted, unlocked } from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { toCompletionView } from './completion.view.js';
import { completionsProjection, type CompletionDocument } from './completions.projection.js';

const a1 = assessment('w1', 'a1');
const c1 = candidate('w1', 'c1');
const [numerical, verbal] = a1.tests;
if (numerical === undefined || verbal === undefined) throw new Error('fixture needs two tests');
const tests = [testCompleted(c1, a1, 'r1', numerical, at(2), 64), testCompleted(c1, a1, 'r2', verbal, at(3), 73)];

describe('completions projection', () => {
  it('accumulates results and stays unfinished until the assessment is completed', () => {
    expect(project<CompletionDocument>(completionsProjection, tests, 'c1:a1')).toMatchObject({ id: 'c1:a1', completedAt: null, results: [{ id: 'r1' }, { id: 'r2' }] });
    const done = project<CompletionDocument>(completionsProjection, [...tests, assessmentCompleted(c1, a1, at(3))], 'c1:a1');
    expect(done?.completedAt).toBe(at(3));
  });

  it('shows the API 2.7 shape with the lock rule applied per result', () => {
    const doc = project<CompletionDocument>(completionsProjection, [...tests, assessmentCompleted(c1, a1, at(3)), unlocked(c1, a1, 'r2', at(4))], 'c1:a1');
    if (doc === null || doc.completedAt === null) throw new Error('finished completion expected');
    const view = toCompletionView({ ...doc, completedAt: doc.completedAt }, 'http://app');
    expect(view).toMatchObject({
      id: 'c1:a1', candidate: { id: 'c1', email: 'c1@example.com' }, assessment: { id: 'a1', name: 'Assessment a1' },
      completedAt: at(3), unlocked: false, reportUrl: 'http://app/candidates/c1/report',
    });
    expect(view.results.map((result) => [result.unlocked, result.scorePercentage])).toEqual([[false, null], [true, 73]]);
    expect(JSON.stringify(view)).not.toContain('64');
    const all = project<CompletionDocument>(completionsProjection, [...tests, assessmentCompleted(c1, a1, at(3)), unlocked(c1, a1, 'r2', at(4)), unlocked(c1, a1, 'r1', at(5))], 'c1:a1');
    if (all === null || all.completedAt === null) throw new Error('finished completion expected');
    expect(toCompletionView({ ...all, completedAt: all.completedAt }, 'http://app').unlocked).toBe(true);
  });

  it('drops every completion of a deleted test candidate', () => {
    expect(project<CompletionDocument>(completionsProjection, [...tests, ...deleted(c1, [a1], ['r1', 'r2'], at(4))], 'c1:a1')).toBeNull();
  });
});
