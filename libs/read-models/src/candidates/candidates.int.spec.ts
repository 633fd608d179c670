import type { FieldValue } from '../shared/document-store.port.js';
import {
  assessment, assessmentCreated, at, candidate, candidateCreated, deleted, fullJourney, registered, testCompleted, unlocked,
} from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { candidatesProjection, type CandidateDocument } from './candidates.projection.js';
import { countCandidates, getCandidate, listCandidates, listCandidatesPage } from './candidates.queries.js';

const ids = (docs: readonly CandidateDocument[]): string[] => docs.map(({ id }) => id);
const strings = (next: FieldValue[] | null): string[] | undefined => next?.map(String);
const a1 = assessment('w1', 'a1');
const a2 = assessment('w1', 'a2', ['typing']);
const typing = a2.tests[0] ?? { slug: 'typing', name: 'Typing', type: 'library' };
const live = (n: number) => candidate('w1', `c${n}`, 'live');

describe('candidates read model (PostgreSQL)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness('rm_candidates', [candidatesProjection]);
    const test = candidate('w1', 't1', 'sandbox');
    const gone = candidate('w1', 't2', 'sandbox');
    await harness.append([
      assessmentCreated(a1, at(0)), assessmentCreated(a2, at(0)),
      // c1..c5 created at minutes 1, 2, 3, 3, 3: ties broken by id.
      ...[1, 2, 3, 4, 5].map((n) => candidateCreated(live(n), at(Math.min(n, 3)))),
      candidateCreated({ ...live(6), email: 'mixed.case@example.com' }, at(4)),
      candidateCreated(candidate('w2', 'x1', 'live'), at(4)),
      candidateCreated(test, at(5)), candidateCreated(gone, at(5)),
      ...registered(live(1), a1, at(10)),
      ...fullJourney(live(2), a2, 20),
      ...registered(live(3), a2, at(40)),
      ...registered(test, a1, at(41)),
      ...registered(gone, a1, at(42)),
      ...deleted(gone, [a1], [], at(43)),
      testCompleted(live(3), a2, 'c3-r0', typing, at(45)),
      unlocked(live(3), a2, 'c3-r0', at(50)),
    ]);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('reads a candidate only in its own workspace and mode', async () => {
    expect(await getCandidate(harness.documentStore, 'w1', 'live', 'c2')).toMatchObject({ id: 'c2', assessmentIds: ['a2'], assessments: [{ status: 'completed' }] });
    expect(await getCandidate(harness.documentStore, 'w1', 'sandbox', 'c2')).toBeNull();
    expect(await getCandidate(harness.documentStore, 'w2', 'live', 'c2')).toBeNull();
    expect(await getCandidate(harness.documentStore, 'w1', 'sandbox', 't2')).toBeNull();
  });

  it('lists newest first, one mode, deleted test candidates gone', async () => {
    const listed = await listCandidates(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 50 });
    expect(ids(listed.items)).toEqual(['c6', 'c5', 'c4', 'c3', 'c2', 'c1']);
    expect(ids((await listCandidates(harness.documentStore, { workspaceId: 'w1', mode: 'sandbox', limit: 50 })).items)).toEqual(['t1']);
  });

  it('filters by assessment, e-mail (case-insensitive) and updated_since (inclusive)', async () => {
    const list = (filters: Partial<Parameters<typeof listCandidates>[1]>) =>
      listCandidates(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 50, ...filters }).then(({ items }) => ids(items));
    expect(await list({ assessmentId: 'a2' })).toEqual(['c3', 'c2']);
    expect(await list({ assessmentId: 'a1' })).toEqual(['c1']);
    expect(await list({ email: ' Mixed.Case@Example.com' })).toEqual(['c6']);
    expect(await list({ updatedSince: at(30) })).toEqual(['c3', 'c2']);
    expect(await list({ updatedSince: '2026-10-01T09:30:00.001Z' })).toEqual(['c3']);
    expect(await list({ updatedSince: at(50) })).toEqual(['c3']);
    expect(await list({ updatedSince: at(50), assessmentId: 'a1' })).toEqual([]);
  });

  it('pages by keyset without skips or repeats while candidates are created', async () => {
    const first = await listCandidates(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 3 });
    expect(ids(first.items)).toEqual(['c6', 'c5', 'c4']);
    await harness.append([candidateCreated(live(7), at(60)), candidateCreated(live(35), at(3))]);
    await harness.project();
    const second = await listCandidates(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 3, after: strings(first.next) });
    const third = await listCandidates(harness.documentStore, { workspaceId: 'w1', mode: 'live', limit: 3, after: strings(second.next) });
    expect([...ids(second.items), ...ids(third.items)]).toEqual(['c35', 'c3', 'c2', 'c1']);
    expect(third.next).toBeNull();
  });

  it('counts and pages by offset for the original endpoint', async () => {
    expect(await countCandidates(harness.documentStore, { workspaceId: 'w1', mode: 'live' })).toBe(8);
    expect(await countCandidates(harness.documentStore, { workspaceId: 'w1', mode: 'sandbox' })).toBe(1);
    const page = (offset: number, order: 'asc' | 'desc') =>
      listCandidatesPage(harness.documentStore, { workspaceId: 'w1', mode: 'live', offset, limit: 3, order }).then(ids);
    expect(await page(0, 'asc')).toEqual(['c1', 'c2', 'c3']);
    expect(await page(3, 'asc')).toEqual(['c35', 'c4', 'c5']);
    expect(await page(0, 'desc')).toEqual(['c7', 'c6', 'c5']);
    expect(await page(9, 'desc')).toEqual([]);
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all('candidates');
    await harness.project({ startAfter: null });
    expect(await harness.all('candidates')).toEqual(before);
  });
});
