import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createEmbeddedEventStore, type EventStore } from '#event-store';
import { UNKNOWN_EVENT_CHANNEL, type UnknownEventObserved } from '#platform/instrumentation/channels.js';
import { allProjections, allProjectionNames } from '../all-projections.js';
import type { AssessmentDocument } from '../assessments/assessments.projection.js';
import { createPostgresDocumentStore } from '../document-store/postgres-document.store.js';
import { rebuildReadModels } from '../rebuild/rebuild-read-models.js';
import type { DocumentStore } from '../shared/document-store.port.js';
import { isKnownEventType } from '#domain';
import { assessment, assessmentCreated, at, candidate, candidateCreated, registered, workspaceCreated } from '../test-support/domain-fixtures.js';
import { createHarness } from '../test-support/harness.js';
import { streamOf, toNewEvent } from '../test-support/recorded.js';
import { ProjectionRunner } from './projection-runner.js';

interface Backend { eventStore: EventStore; documentStore: DocumentStore; close(): Promise<void> }

const onPostgres = async (): Promise<Backend> => {
  const harness = await createHarness('rm_unknown', allProjections);
  return { eventStore: harness.eventStore, documentStore: harness.documentStore, close: () => harness.close() };
};

const onEmbedded = async (): Promise<Backend> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'rm-unknown-'));
  const { store, database, stop } = await createEmbeddedEventStore({ dataDir, logger: pino({ level: 'silent' }) });
  return {
    eventStore: store,
    documentStore: createPostgresDocumentStore({ pool: database.pool, schema: 'public', deployment: 'single-process' }),
    close: async () => { await stop(); await rm(dataDir, { recursive: true, force: true }); },
  };
};

/** A type no version of this code knows: what a newer version would write during a rolling deploy. */
const FUTURE_TYPE = 'CandidateNicknameChosen';

// A rolling deploy: an older runner meets event types it does not know. Played by a runner that also
// takes CandidateCreated for unknown (the "older" one); the newer version's rebuild takes it in.
describe.each([['PostgreSQL', onPostgres], ['embedded PGlite', onEmbedded]])('projection runner and event types it does not know, on %s', (_name, open) => {
  let backend: Backend;
  beforeAll(async () => { backend = await open(); }, 30_000);
  afterAll(() => backend.close());

  it('goes past them (checkpoint at the head, later events projected, counted once, one warning per type); a rebuild by a version that knows them takes them in', async () => {
    const a1 = assessment('w1', 'a1');
    const c1 = candidate('w1', 'c1');
    const append = async (events: Parameters<typeof toNewEvent>[0][]): Promise<bigint> => {
      let position = 0n;
      for (const event of events) position = (await backend.eventStore.appendToStream(streamOf(event), [toNewEvent(event)], { expectedRevision: 'any' })).position;
      return position;
    };
    await append([workspaceCreated('w1', at(0)), assessmentCreated(a1, at(1))]);
    await backend.eventStore.appendToStream(`candidate-${c1.id}`, [{ id: randomUUID(), type: FUTURE_TYPE, data: { nickname: 'c' }, metadata: { correlationId: 'x', causationId: null, actor: 'api', requestId: 'r', time: at(2) } }], { expectedRevision: 'any' });
    const head = await append([candidateCreated(c1, at(3)), ...registered(c1, a1, at(3))]);

    const counted: UnknownEventObserved[] = [];
    const listener = (message: unknown): void => { counted.push(message as UnknownEventObserved); };
    const lines: string[] = [];
    subscribe(UNKNOWN_EVENT_CHANNEL.name, listener);
    try {
      const older = new ProjectionRunner({
        eventStore: backend.eventStore, documentStore: backend.documentStore, projections: allProjections, retryDelayMs: 50,
        knownEventType: (type) => isKnownEventType(type) && type !== 'CandidateCreated',
        logger: pino({ level: 'info' }, { write: (line: string) => { lines.push(line); } }),
      });
      await older.start();
      expect(await older.waitForPosition(head, 10_000)).toBe(true);
      await older.stop();
    } finally {
      unsubscribe(UNKNOWN_EVENT_CHANNEL.name, listener);
    }
    const checkpoints = await backend.documentStore.checkpoints(allProjectionNames);
    expect([...checkpoints.values()]).toStrictEqual(allProjectionNames.map(() => head));
    expect((await backend.documentStore.get<AssessmentDocument>('assessments', 'a1'))?.candidateCount).toEqual({ live: 1, sandbox: 0 });
    expect(counted).toStrictEqual([{ follower: 'projections', type: FUTURE_TYPE }, { follower: 'projections', type: 'CandidateCreated' }]);
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; type?: string }).filter(({ level }) => level === 40);
    expect(warnings.map(({ type }) => type)).toStrictEqual([FUTURE_TYPE, 'CandidateCreated']);
    const before = await backend.documentStore.get<{ email?: string }>('candidates', 'c1');

    // The newer version knows CandidateCreated: its rebuild projects it (the unknown type is still passed over).
    await rebuildReadModels({ eventStore: backend.eventStore, documentStore: backend.documentStore, projections: allProjections, logger: pino({ level: 'silent' }) });
    const after = await backend.documentStore.get<{ email?: string }>('candidates', 'c1');
    expect(before?.email).toBeUndefined();
    expect(after?.email).toBe(c1.email);
  }, 30_000);
});
