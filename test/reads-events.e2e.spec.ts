import { jest } from '@jest/globals';
import { uniqueEmail, world } from './support/messaging-world.js';
import { expectStatus } from './support/reads-world.js';
import { type RunningService, startService } from './support/service.js';

jest.setTimeout(90_000);

type World = ReturnType<typeof world>;
type Workspace = Awaited<ReturnType<World['workspace']>>;
type Listed = { data: { id: string; event: string; createdAt: string; sandbox?: true }[]; meta: { nextCursor: string; hasMore: boolean } };

/** GET /v1/events as docs/integrating.md ("The events feed") and docs/api.md ("Lists") describe it. */
describe('the events feed: stored cursors, filters, refusals, deletions and 30 days', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({ SIMULATED_CLOCK: 'true' });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  /** A workspace where one person was invited, registered, finished a test and had it unlocked, in `mode`. */
  const scriptedWorld = async (w: World, mode: 'live' | 'sandbox', existing?: Workspace) => {
    const workspace = existing ?? await w.workspace();
    const client = mode === 'live' ? workspace.live : workspace.sandbox;
    const assessment = await w.assessment(client, { tests: ['numerical-reasoning', 'verbal-reasoning'] });
    const invited = await w.invite(client, assessment.id, [{ email: uniqueEmail(mode), firstName: 'Ann' }]);
    const person = await w.register({ invitationUrl: invited.body.data[0].invitationUrl });
    const result = await w.complete(person.candidateId, assessment.id, 'numerical-reasoning');
    await w.unlock(result.resultId);
    const read = async (query = ''): Promise<Listed> => expectStatus(await client.get(`/v1/events${query}`), 200, query).body;
    return { workspace, client, person, read };
  };

  it('serves one stored cursor with any filters, keeps it when nothing comes, and refuses what does not belong', async () => {
    const w = world(service);
    const { workspace, client, read } = await scriptedWorld(w, 'live');
    const all = await read('?limit=100');
    expect(all.data.map((envelope) => envelope.event)).toEqual(['candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted', 'resultUnlocked']);
    expect(all.meta).toEqual({ nextCursor: expect.any(String), hasMore: false });

    const first = await read('?limit=2');
    expect(first.data.map((envelope) => envelope.id)).toEqual(all.data.slice(0, 2).map((envelope) => envelope.id));
    expect(first.meta.hasMore).toBe(true);
    const stored = encodeURIComponent(first.meta.nextCursor);
    // The cursor a page without filters gave serves filtered polls, both filters applying after it.
    const filtered = await read(`?cursor=${stored}&type=testCompleted,resultUnlocked`);
    expect(filtered.data.map((envelope) => envelope.event)).toEqual(['testCompleted', 'resultUnlocked']);
    const unlockedAt = all.data[4]?.createdAt ?? '';
    expect((await read(`?cursor=${stored}&since=${encodeURIComponent(unlockedAt)}`)).data.map((envelope) => envelope.event)).toEqual(['resultUnlocked']);
    // Nothing after the last one: the same place again, to poll from later.
    const end = await read(`?cursor=${encodeURIComponent(filtered.meta.nextCursor)}`);
    expect(end).toEqual({ data: [], meta: { nextCursor: filtered.meta.nextCursor, hasMore: false } });

    const sandboxCursor = (expectStatus(await workspace.sandbox.get('/v1/events'), 200).body as Listed).meta.nextCursor;
    expect((await client.get(`/v1/events?cursor=${encodeURIComponent(sandboxCursor)}`)).body.error.code).toBe('invalid_cursor');
    expect((await client.get('/v1/events?type=testCompleted,candidateDeleted')).body.error.code).toBe('invalid_parameter');
    expect((await client.get('/v1/events?limit=101')).body.error.code).toBe('invalid_parameter');
    const one = all.data[3]?.id ?? '';
    expect(expectStatus(await client.get(`/v1/events/${one}`), 200).body.data).toEqual(all.data[3]);
    expectStatus(await workspace.sandbox.get(`/v1/events/${one}`), 404);
    expectStatus(await (await w.workspace()).live.get(`/v1/events/${one}`), 404);
  });

  it("lists a test candidate's events with sandbox: true until the deletion, and no event older than 30 days", async () => {
    const w = world(service);
    const { workspace, person, read } = await scriptedWorld(w, 'sandbox');
    const listed = await read();
    expect(listed.data).toHaveLength(5);
    expect(listed.data.every((envelope) => envelope.sandbox === true)).toBe(true);
    expectStatus(await w.app.call('DELETE', `/internal/candidates/${person.candidateId}`), 204);
    expect((await read()).data).toEqual([]);
    expectStatus(await workspace.sandbox.get(`/v1/events/${listed.data[0]?.id}`), 404);

    const live = await scriptedWorld(w, 'live', workspace);
    const [oldest] = (await live.read()).data;
    expectStatus(await w.app.call('POST', '/internal/clock', { advanceSeconds: 31 * 24 * 60 * 60 }), 200);
    expect((await live.read()).data).toEqual([]);
    expectStatus(await live.client.get(`/v1/events/${oldest?.id}`), 404);
  });
});
