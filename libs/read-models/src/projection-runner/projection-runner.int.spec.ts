import { allProjections } from '../all-projections.js';
import type { AssessmentDocument } from '../assessments/assessments.projection.js';
import type { DocumentStore } from '../shared/document-store.port.js';
import { assessment, assessmentCreated, at, candidate, event, registered, workspaceCreated } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { busyWorkspace } from '../test-support/scenario.js';
import { CheckpointWaiter } from './checkpoint-waiter.js';

/** The real store, with every batch it is asked to write recorded (positions only). */
const recordingBatches = (store: DocumentStore, batches: bigint[], failures = { remaining: 0 }): DocumentStore => ({
  ...store,
  prepare: (collections, options) => store.prepare(collections, options),
  async applyBatch(names, changes, checkpoint, options) {
    if (failures.remaining > 0) {
      failures.remaining -= 1;
      throw new Error('simulated write failure');
    }
    await store.applyBatch(names, changes, checkpoint, options);
    batches.push(checkpoint);
  },
});

const manyRegistrations = (count: number) => {
  const a1 = assessment('w1', 'a1');
  return [
    workspaceCreated('w1', at(0)),
    assessmentCreated(a1, at(1)),
    ...Array.from({ length: count }, (_, i) => registered(candidate('w1', `c${i}`), a1, at(2))).flat(),
  ];
};

// Generous timeouts: the machine may be shared with other suites.
const SLOW = 30_000;

describe('ProjectionRunner', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await createHarness('rm_runner', allProjections);
  });
  afterEach(() => harness.close());

  it('catches up in batches of at most batchSize events, later events on a document seeing earlier ones', async () => {
    const head = await harness.append(manyRegistrations(300));
    const batches: bigint[] = [];
    // Timers out of the way: only the batch size and the caught-up signal cut batches here.
    const runner = await harness.startRunner({
      documentStore: recordingBatches(harness.documentStore, batches), batchSize: 250, idleFlushMs: 60_000, maxFlushDelayMs: 60_000,
    });
    expect(await runner.waitForPosition(head, 10_000)).toBe(true);
    const [first] = await harness.eventStore.readAll({ after: null, maxCount: 1 });
    const start = (first?.position ?? 1n) - 1n;
    expect(batches.map((position) => position - start)).toEqual([250n, 500n, 602n]);
    const a1 = await harness.documentStore.get<AssessmentDocument>('assessments', 'a1');
    expect(a1?.candidateCount).toEqual({ live: 300, sandbox: 0 });
  }, SLOW);

  it('waits for a position: true once projected, false on timeout', async () => {
    const runner = await harness.startRunner();
    const position = await harness.append([workspaceCreated('w1', at(0))]);
    expect(await runner.waitForPosition(position, 5_000)).toBe(true);
    expect(await harness.documentStore.get('workspaces', 'w1')).toMatchObject({ id: 'w1', verified: false, customTests: [], sandboxUsage: [], webhook: null });
    const later = await harness.append([event('WorkspaceVerified', { workspaceId: 'w1', verifiedAt: at(1) })]);
    expect(await runner.waitForPosition(later, 5_000)).toBe(true);
    expect(await runner.waitForPosition(later + 1_000n, 50)).toBe(false);
  }, SLOW);

  it('lets another process wait through the checkpoint table', async () => {
    await harness.startRunner();
    const waiter = new CheckpointWaiter(harness.documentStore, allProjections.map(({ name }) => name));
    const position = await harness.append([workspaceCreated('w1', at(0))]);
    expect(await waiter.waitForPosition(position, 5_000)).toBe(true);
    expect(await waiter.waitForPosition(position + 1_000n, 50)).toBe(false);
  }, SLOW);

  it('changes nothing when the same events are handed over again (replay twice)', async () => {
    const head = await harness.append(busyWorkspace('w1', 12));
    await harness.project();
    const before = await Promise.all(allProjections.map(({ name }) => harness.all(name)));
    const checkpoints = await harness.documentStore.checkpoints(allProjections.map(({ name }) => name));
    // Subscribe from the very start again: every event is at or below the checkpoints.
    const replay = await harness.startRunner({ startAfter: null });
    expect(await replay.waitForPosition(head, 5_000)).toBe(true);
    await replay.stop();
    expect(await Promise.all(allProjections.map(({ name }) => harness.all(name)))).toEqual(before);
    expect(await harness.documentStore.checkpoints(allProjections.map(({ name }) => name))).toEqual(checkpoints);
    expect(before.every((docs) => docs.length > 0)).toBe(true);
  }, SLOW);

  it('applies no event twice to a document when the checkpoint write was lost (store without transactions)', async () => {
    const head = await harness.append(manyRegistrations(20));
    await harness.project();
    const before = await Promise.all(allProjections.map(({ name }) => harness.all(name)));
    // Documents written, checkpoint not: what a crash between MongoDB's bulk writes and its checkpoint leaves.
    await harness.database.pool.query(`UPDATE "${harness.database.schema}".projection_checkpoints SET position = $1`, [(head - 15n).toString()]);
    await harness.project();
    expect(await Promise.all(allProjections.map(({ name }) => harness.all(name)))).toEqual(before);
    expect((await harness.documentStore.checkpoints(['assessments'])).get('assessments')).toBe(head);
  }, SLOW);

  it('drops an unwritten batch after a failure and resumes without applying an event twice', async () => {
    const head = await harness.append(manyRegistrations(40));
    const failures = { remaining: 1 };
    const runner = await harness.startRunner({ documentStore: recordingBatches(harness.documentStore, [], failures), batchSize: 10 });
    expect(await runner.waitForPosition(head, 10_000)).toBe(true);
    expect(failures.remaining).toBe(0);
    const a1 = await harness.documentStore.get<AssessmentDocument>('assessments', 'a1');
    expect(a1?.candidateCount.live).toBe(40);
  }, SLOW);

  it('never writes a batch evolved from documents another writer has replaced since', async () => {
    const runner = await harness.startRunner();
    const a1 = assessment('w1', 'a1');
    const created = await harness.append([workspaceCreated('w1', at(0)), assessmentCreated(a1, at(1))]);
    expect(await runner.waitForPosition(created, 5_000)).toBe(true);
    // What a rebuild's switch-over does: other documents, checkpoints set to the position they reflect.
    const current = await harness.documentStore.get<AssessmentDocument>('assessments', 'a1');
    if (current === null) throw new Error('assessment expected');
    const switchedTo = created + 1_000n;
    await harness.database.pool.query(`UPDATE "${harness.database.schema}".projection_checkpoints SET position = $1`, [switchedTo.toString()]);
    await harness.documentStore.applyBatch([], [{ collection: 'assessments', id: 'a1', doc: { ...current, candidateCount: { live: 7, sandbox: 0 } } }], switchedTo);
    // The runner's cache still says 0: without the checkpoint check it would write 1 over the 7.
    const next = await harness.append(registered(candidate('w1', 'c1'), a1, at(2)));
    expect(await runner.waitForPosition(next, 5_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await harness.documentStore.get<AssessmentDocument>('assessments', 'a1'))?.candidateCount.live).toBe(7);
    expect(runner.position).toBe(switchedTo);
  }, SLOW);

  it('notices, while idle, checkpoints set back below its own and replays the gap', async () => {
    const runner = await harness.startRunner({ checkpointCheckMs: 20 });
    const a1 = assessment('w1', 'a1');
    await harness.append([workspaceCreated('w1', at(0)), assessmentCreated(a1, at(1))]);
    const firstRegistration = await harness.append(registered(candidate('w1', 'c1'), a1, at(2)));
    const head = await harness.append(registered(candidate('w1', 'c2'), a1, at(3)));
    expect(await runner.waitForPosition(head, 5_000)).toBe(true);
    // A switch-over that reached only the first registration.
    const current = await harness.documentStore.get<AssessmentDocument>('assessments', 'a1');
    if (current === null) throw new Error('assessment expected');
    await harness.documentStore.applyBatch([], [{ collection: 'assessments', id: 'a1', doc: { ...current, candidateCount: { live: 1, sandbox: 0 } } }], firstRegistration);
    await harness.database.pool.query(`UPDATE "${harness.database.schema}".projection_checkpoints SET position = $1`, [firstRegistration.toString()]);
    const deadline = Date.now() + 5_000;
    let count = 1;
    while (count !== 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      count = (await harness.documentStore.get<AssessmentDocument>('assessments', 'a1'))?.candidateCount.live ?? 0;
    }
    expect(count).toBe(2);
    expect((await harness.documentStore.checkpoints(['assessments'])).get('assessments')).toBe(head);
  }, SLOW);
});
