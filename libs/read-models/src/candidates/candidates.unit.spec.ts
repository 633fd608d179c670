import type { DomainEvent } from '#domain';
import {
  assessment, assessmentCompleted, at, candidate, candidateCreated, deleted, registered, started, testCompleted, unlocked,
} from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { toCandidateView } from './candidate.view.js';
import { candidatesProjection, type CandidateDocument } from './candidates.projection.js';

const a1 = assessment('w1', 'a1');
const c1 = candidate('w1', 'c1', 'sandbox');
const [numerical, verbal] = a1.tests;
if (numerical === undefined || verbal === undefined) throw new Error('fixture needs two tests');
const candidateAfter = (...events: DomainEvent[]) => project<CandidateDocument>(candidatesProjection, [candidateCreated(c1, at(0)), ...events], 'c1');

describe('candidates projection', () => {
  it('creates the candidate with no assessments', () => {
    expect(candidateAfter()).toEqual({
      id: 'c1', workspaceId: 'w1', mode: 'sandbox', email: 'c1@example.com', firstName: 'First c1', surname: 'Last c1',
      createdAt: at(0), updatedAt: at(0), assessmentIds: [], assessments: [],
    });
  });

  it('moves through not_started, in_progress and completed, updating updatedAt each time', () => {
    const reg = registered(c1, a1, at(1));
    expect(candidateAfter(...reg)).toMatchObject({ updatedAt: at(1), assessmentIds: ['a1'], assessments: [{ id: 'a1', status: 'not_started', registeredAt: at(1) }] });
    expect(candidateAfter(...reg, started(c1, a1, at(2)))).toMatchObject({ updatedAt: at(2), assessments: [{ status: 'in_progress', startedAt: at(2) }] });
    const firstTest = testCompleted(c1, a1, 'r1', numerical, at(3));
    expect(candidateAfter(...reg, firstTest)).toMatchObject({ updatedAt: at(3), assessments: [{ status: 'in_progress', completedAt: null }] });
    const done = [...reg, started(c1, a1, at(2)), firstTest, testCompleted(c1, a1, 'r2', verbal, at(4)), assessmentCompleted(c1, a1, at(4))];
    expect(candidateAfter(...done)).toMatchObject({ updatedAt: at(4), assessments: [{ status: 'completed', completedAt: at(4) }] });
    expect(candidateAfter(...done, unlocked(c1, a1, 'r1', at(9)))?.updatedAt).toBe(at(9));
  });

  it('keeps scores out of the view until each result is unlocked', () => {
    const events = [...registered(c1, a1, at(1)), testCompleted(c1, a1, 'r1', numerical, at(2), 88), testCompleted(c1, a1, 'r2', verbal, at(3), 77), assessmentCompleted(c1, a1, at(3))];
    const locked = candidateAfter(...events);
    if (locked === null) throw new Error('candidate expected');
    const lockedView = toCandidateView(locked, 'http://app');
    expect(lockedView.reportUrl).toBe('http://app/candidates/c1/report');
    expect(lockedView.assessments[0]).toMatchObject({ unlocked: false, completedAt: at(3) });
    for (const result of lockedView.assessments[0]?.results ?? []) expect(result).toMatchObject({ unlocked: false, scorePercentage: null, scores: null, result: null });
    expect(JSON.stringify(lockedView)).not.toMatch(/88|77|openness/);

    const half = candidateAfter(...events, unlocked(c1, a1, 'r1', at(5)));
    if (half === null) throw new Error('candidate expected');
    const halfView = toCandidateView(half, 'http://app').assessments[0];
    expect(halfView?.unlocked).toBe(false);
    expect(halfView?.results.map((result) => result.scorePercentage)).toEqual([88, null]);

    const all = candidateAfter(...events, unlocked(c1, a1, 'r1', at(5)), unlocked(c1, a1, 'r2', at(6)));
    if (all === null) throw new Error('candidate expected');
    expect(toCandidateView(all, 'http://app').assessments[0]?.unlocked).toBe(true);
  });

  it('does not count a repeated unlock as an update', () => {
    const events = [...registered(c1, a1, at(1)), testCompleted(c1, a1, 'r1', numerical, at(2)), unlocked(c1, a1, 'r1', at(3))];
    expect(candidateAfter(...events, unlocked(c1, a1, 'r1', at(9)))).toEqual(candidateAfter(...events));
  });

  it('ignores a repeated test completion', () => {
    const doc = candidateAfter(...registered(c1, a1, at(1)), testCompleted(c1, a1, 'r1', numerical, at(2)), testCompleted(c1, a1, 'r1', numerical, at(2)));
    expect(doc?.assessments[0]?.results).toHaveLength(1);
  });

  it('deletes a test candidate', () => {
    expect(candidateAfter(...registered(c1, a1, at(1)), ...deleted(c1, [a1], [], at(2)))).toBeNull();
  });
});
