import { jest } from '@jest/globals';
import { pino } from 'pino';
import { type WorkspaceEvent, evolveWorkspace, initialWorkspaceState, upcastData, workspaceStream } from '#domain';
import type { RecordedEvent } from '#event-store';
import { allProjections, rebuildReadModels } from '#read-models';
import type { Stores } from './create-infrastructure.js';
import { openScratchStores } from './testing/scratch-stores.js';

jest.setTimeout(60_000);

const logger = pino({ level: 'silent' });
const time = (minute: number) => new Date(Date.UTC(2026, 10, 1, 9, minute)).toISOString();
const metadata = (minute: number, schemaVersion?: number) => ({
  correlationId: 'upcast', causationId: null, actor: 'system', requestId: 'upcast', time: time(minute), ...(schemaVersion === undefined ? {} : { schemaVersion }),
});

describe('upcastData', () => {
  it('brings SandboxPlacesUsed version 1 (count) to version 2 (places) and leaves the current shape alone', () => {
    expect(upcastData('SandboxPlacesUsed', { workspaceId: 'w', assessmentId: 'a', count: 3, usedAt: 't' }, 1)).toEqual({ workspaceId: 'w', assessmentId: 'a', places: 3, usedAt: 't' });
    const current = { workspaceId: 'w', assessmentId: 'a', places: 2, usedAt: 't' };
    expect(upcastData('SandboxPlacesUsed', current, 2)).toBe(current);
    // A version this code does not know yet (a newer release wrote it) is left as it is.
    expect(upcastData('SandboxPlacesUsed', current, 3)).toBe(current);
    const other = { workspaceId: 'w', name: 'n', freeAllowance: 0, createdAt: 't' };
    expect(upcastData('WorkspaceCreated', other, 1)).toBe(other);
  });
});

/**
 * A real change of shape on every read path: a workspace stream holding SandboxPlacesUsed as the
 * previous release wrote it (version 1, `count`, no version recorded) and as this one writes it
 * (version 2, `places`). Folds, stream and log reads (whole and data-only), subscriptions and a
 * rebuild all see version 2 only; the log keeps version 1 as written.
 */
describe.each(['embedded', 'postgres'] as const)('events of two schema versions in one stream (%s)', (kind) => {
  let stores: Stores;
  let cleanUp: () => Promise<void>;
  const workspaceId = 'ws_upcasting';
  const stream = workspaceStream(workspaceId);

  beforeAll(async () => {
    ({ stores, remove: cleanUp } = await openScratchStores(kind, 'upcasting', logger));
    // As the previous release wrote them: no schema version recorded, `count`.
    await stores.audit.logStore.appendToStream(stream, [
      { id: crypto.randomUUID(), type: 'WorkspaceCreated', data: { workspaceId, name: 'Upcasting', freeAllowance: 0, createdAt: time(0) }, metadata: metadata(0) },
      { id: crypto.randomUUID(), type: 'SandboxPlacesUsed', data: { workspaceId, assessmentId: 'a1', count: 3, usedAt: time(1) }, metadata: metadata(1) },
    ], { expectedRevision: 'no_stream' });
    // As this release writes it (version 2, recorded).
    await stores.eventStore.appendToStream(stream, [
      { id: crypto.randomUUID(), type: 'SandboxPlacesUsed', data: { workspaceId, assessmentId: 'a1', places: 2, usedAt: time(2) }, metadata: metadata(2, 2) },
    ], { expectedRevision: 1 });
  });

  afterAll(async () => {
    await stores?.stop();
    await cleanUp?.();
  });

  const placesOf = (events: readonly RecordedEvent[]) =>
    events.filter((event) => event.type === 'SandboxPlacesUsed').map((event) => ({ places: event.data.places, count: event.data.count }));
  const current = [{ places: 3, count: undefined }, { places: 2, count: undefined }];

  it('folds both into the state decisions read', async () => {
    const events = await stores.eventStore.readStream(stream);
    const state = events.reduce((folded, event) => evolveWorkspace(folded, event as unknown as WorkspaceEvent), initialWorkspaceState());
    expect('sandboxUsage' in state ? state.sandboxUsage.toArray().map(({ count }) => count) : state).toEqual([3, 2]);
  });

  it('hands the current shape to every reader: stream, log, data-only log and subscription', async () => {
    expect(placesOf(await stores.eventStore.readStream(stream))).toEqual(current);
    expect(placesOf(await stores.eventStore.readAll({ after: null, maxCount: 100 }))).toEqual(current);
    expect(placesOf(await stores.eventStore.readAll({ after: null, maxCount: 100, dataOnly: true }))).toEqual(current);
    expect(placesOf(await stores.eventStore.readAll({ after: null, maxCount: 100, dataOnly: true, dataOfTypes: ['SandboxPlacesUsed'] }))).toEqual(current);
    const followed: RecordedEvent[] = [];
    await new Promise<void>((done, fail) => {
      const subscription = stores.eventStore.subscribeToAll({
        after: null,
        handler: async (event) => {
          followed.push(event);
          if (followed.length === 3) void subscription.stop().then(done, fail);
        },
        onError: fail,
      });
    });
    expect(placesOf(followed)).toEqual(current);
  });

  it('projects both: a rebuild of the read models counts every place', async () => {
    await rebuildReadModels({ eventStore: stores.eventStore, documentStore: stores.documents, projections: allProjections, logger });
    const workspace = await stores.documents.get<{ sandboxUsage: { count: number }[] }>('workspaces', workspaceId);
    expect(workspace?.sandboxUsage.map(({ count }) => count)).toEqual([3, 2]);
  });

  it('keeps the log as written: the old event still says count, with no version', async () => {
    const stored = await stores.audit.logStore.readStream(stream);
    expect(stored.map((event) => [event.type, event.metadata.schemaVersion ?? null, event.data.count ?? event.data.places]))
      .toEqual([['WorkspaceCreated', null, undefined], ['SandboxPlacesUsed', null, 3], ['SandboxPlacesUsed', 2, 2]]);
  });
});
