import type { FieldValue } from '../shared/document-store.port.js';
import { assessment, assessmentCreated, at, candidate, event, registered } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { assessmentsProjection } from './assessments.projection.js';
import { getAssessment, listAssessments } from './assessments.queries.js';

const strings = (next: FieldValue[] | null): string[] | undefined => next?.map(String);

describe('assessments read model (PostgreSQL)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness('rm_assessments', [assessmentsProjection]);
    // a3, a4 and a5 share a creation time so that ordering falls back to id.
    const [a1, a2, a3, a4, a5] = [1, 2, 3, 4, 5].map((n) => assessment('w1', `a${n}`));
    const other = assessment('w2', 'b1');
    if (a1 === undefined || a2 === undefined || a3 === undefined || a4 === undefined || a5 === undefined) throw new Error('fixtures');
    await harness.append([
      assessmentCreated(a1, at(1)), assessmentCreated(a2, at(2)), assessmentCreated(a3, at(3)), assessmentCreated(a4, at(3)), assessmentCreated(a5, at(3)),
      assessmentCreated(other, at(4)),
      event('AssessmentClosed', { assessmentId: 'a2', workspaceId: 'w1', closedAt: at(5) }),
      ...registered(candidate('w1', 'c1', 'live'), a1, at(6)),
      ...registered(candidate('w1', 'c2', 'sandbox'), a1, at(6)),
      ...registered(candidate('w1', 'c3', 'sandbox'), a1, at(6)),
    ]);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('reads one assessment of the workspace only', async () => {
    expect(await getAssessment(harness.documentStore, 'w1', 'a1')).toMatchObject({ id: 'a1', status: 'active', candidateCount: { live: 1, sandbox: 2 } });
    expect(await getAssessment(harness.documentStore, 'w2', 'a1')).toBeNull();
    expect(await getAssessment(harness.documentStore, 'w1', 'b1')).toBeNull();
  });

  it('lists newest first, ties by id, filtered by status', async () => {
    const all = await listAssessments(harness.documentStore, 'w1', { limit: 10 });
    expect(all.items.map(({ id }) => id)).toEqual(['a5', 'a4', 'a3', 'a2', 'a1']);
    expect(all.next).toBeNull();
    expect((await listAssessments(harness.documentStore, 'w1', { status: 'archived', limit: 10 })).items.map(({ id }) => id)).toEqual(['a2']);
    expect((await listAssessments(harness.documentStore, 'w1', { status: 'active', limit: 10 })).items.map(({ id }) => id)).toEqual(['a5', 'a4', 'a3', 'a1']);
  });

  it('pages by keyset without skips or repeats while assessments are created', async () => {
    const first = await listAssessments(harness.documentStore, 'w1', { limit: 2 });
    expect(first.items.map(({ id }) => id)).toEqual(['a5', 'a4']);
    expect(first.next).toEqual([at(3), 'a4']);
    // A newer one belongs before the cursor; one tied with the cursor's time and a lower id after it.
    await harness.append([assessmentCreated(assessment('w1', 'a9'), at(7)), assessmentCreated(assessment('w1', 'a35'), at(3))]);
    await harness.project();
    const second = await listAssessments(harness.documentStore, 'w1', { limit: 2, after: strings(first.next) });
    const third = await listAssessments(harness.documentStore, 'w1', { limit: 2, after: strings(second.next) });
    expect([...second.items, ...third.items].map(({ id }) => id)).toEqual(['a35', 'a3', 'a2', 'a1']);
    expect(third.next).toBeNull();
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all('assessments');
    await harness.project({ startAfter: null });
    expect(await harness.all('assessments')).toEqual(before);
  });
});
