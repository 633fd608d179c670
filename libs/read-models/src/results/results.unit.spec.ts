import { assessment, at, candidate, deleted, testCompleted, unlocked } from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { toResultListView } from './result-list.view.js';
import { resultsProjection, type ResultDocument } from './results.projection.js';

const a1 = assessment('w1', 'a1');
const c1 = candidate('w1', 'c1', 'sandbox');
const numerical = a1.tests[0] ?? { slug: 'numerical', name: 'Test numerical', type: 'library' };
const finished = testCompleted(c1, a1, 'r1', numerical, at(2), 91);

describe('results projection', () => {
  it('records a finished test with who took it, locked', () => {
    const doc = project<ResultDocument>(resultsProjection, [finished], 'r1');
    expect(doc).toMatchObject({
      id: 'r1', workspaceId: 'w1', mode: 'sandbox', candidateId: 'c1', assessmentId: 'a1', assessment: { id: 'a1', name: 'Assessment a1' },
      candidate: { id: 'c1', email: 'c1@example.com', firstName: 'First c1', surname: 'Last c1' },
      testSlug: 'numerical', testName: 'Test numerical', testType: 'library', completedAt: at(2), unlockedAt: null,
    });
    if (doc === null) throw new Error('result expected');
    const view = toResultListView(doc, 'http://app');
    expect(view).toMatchObject({ unlocked: false, scorePercentage: null, questionsTotal: null, scores: null, reportUrl: 'http://app/candidates/c1/report' });
    expect(JSON.stringify(view)).not.toMatch(/91|openness/);
  });

  it('shows the scores once unlocked, keeping the first unlock time', () => {
    const doc = project<ResultDocument>(resultsProjection, [finished, unlocked(c1, a1, 'r1', at(5)), unlocked(c1, a1, 'r1', at(6))], 'r1');
    if (doc === null) throw new Error('result expected');
    expect(toResultListView(doc, 'http://app')).toMatchObject({ unlocked: true, unlockedAt: at(5), scorePercentage: 91 });
  });

  it('deletes the results of a deleted test candidate', () => {
    expect(project<ResultDocument>(resultsProjection, [finished, ...deleted(c1, [a1], ['r1'], at(3))], 'r1')).toBeNull();
  });
});
