import { assessment, assessmentCreated, at, candidate, deleted, event, library, registered } from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { toAssessmentView } from './assessment.view.js';
import { assessmentsProjection, type AssessmentDocument } from './assessments.projection.js';

const a1 = assessment('w1', 'a1');
const live = candidate('w1', 'c1', 'live');
const sandbox = candidate('w1', 'c2', 'sandbox');

describe('assessments projection', () => {
  it('counts registered candidates per mode and forgets a deleted test candidate', () => {
    const events = [assessmentCreated(a1, at(0)), ...registered(live, a1, at(1)), ...registered(sandbox, a1, at(2))];
    expect(project<AssessmentDocument>(assessmentsProjection, events, 'a1')?.candidateCount).toEqual({ live: 1, sandbox: 1 });
    const afterDeletion = [...events, ...deleted(sandbox, [a1], [], at(3))];
    expect(project<AssessmentDocument>(assessmentsProjection, afterDeletion, 'a1')?.candidateCount).toEqual({ live: 1, sandbox: 0 });
  });

  it('appends custom tests and archives on close', () => {
    const doc = project<AssessmentDocument>(assessmentsProjection, [
      assessmentCreated(a1, at(0)),
      event('AssessmentTestAdded', { assessmentId: 'a1', workspaceId: 'w1', test: { slug: 'ours', name: 'Ours', type: 'custom' }, addedAt: at(1) }),
      event('AssessmentClosed', { assessmentId: 'a1', workspaceId: 'w1', closedAt: at(2) }),
    ], 'a1');
    expect(doc?.status).toBe('archived');
    expect(doc?.tests).toEqual([library('numerical'), library('verbal'), { slug: 'ours', name: 'Ours', type: 'custom' }]);
  });

  it('shows the API shape with the count of the reading mode', () => {
    const doc = project<AssessmentDocument>(assessmentsProjection, [assessmentCreated(a1, at(0)), ...registered(live, a1, at(1))], 'a1');
    if (doc === null) throw new Error('assessment expected');
    expect(toAssessmentView(doc, 'live', 'http://app')).toEqual({
      id: 'a1', name: 'Assessment a1', status: 'active', createdAt: at(0), deadline: null, tests: a1.tests,
      candidateCount: 1, inviteUrl: 'http://app/join/a1/tok-a1',
    });
    expect(toAssessmentView(doc, 'sandbox', 'http://app').candidateCount).toBe(0);
  });
});
