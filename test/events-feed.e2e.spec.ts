import { jest } from '@jest/globals';
import { startService, type RunningService } from './support/service.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './support/messaging-receivers.js';
import { ISO_TIME, TEST_SLUGS, uniqueEmail, world } from './support/messaging-world.js';

jest.setTimeout(120_000);

type Client = ReturnType<ReturnType<typeof world>['workspace']> extends Promise<infer W> ? (W extends { live: infer C } ? C : never) : never;
interface Envelope {
  id: string;
  event: string;
  createdAt: string;
  workspaceId: string;
  data: any;
  sandbox?: true;
}
interface FeedPage {
  data: Envelope[];
  meta: { nextCursor: string; hasMore: boolean };
}

const LOCKED = {
  unlocked: false, unlockedAt: null, scorePercentage: null, speedCompleted: null, questionsAnswered: null,
  questionsCorrect: null, questionsIncorrect: null, questionsTotal: null, result: null, scores: null,
};

/**
 * The events feed end to end (issue 30): the compiled service, a real webhook receiver, the public
 * API and the internal application, as an integrator and an operator use them. Every answer is
 * checked against docs/openapi.json by the test client.
 */
describe('events feed (e2e)', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let w: ReturnType<typeof world>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startService({ WEBHOOK_ALLOW_INSECURE: 'true', SIMULATED_CLOCK: 'true' });
    w = world(service);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
  });

  const page = async (client: Client, query = ''): Promise<FeedPage> => {
    const answer = await client.get(`/v1/events${query}`);
    expect(answer.status).toBe(200);
    return answer.body as FeedPage;
  };

  /** Every envelope from `cursor` on, following `nextCursor` while `hasMore`; the cursor to poll from next. */
  const readAll = async (client: Client, query: string, cursor?: string, limit = 100): Promise<{ envelopes: Envelope[]; cursor: string }> => {
    const envelopes: Envelope[] = [];
    let next = cursor;
    for (;;) {
      const params = new URLSearchParams(query);
      params.set('limit', String(limit));
      if (next !== undefined) params.set('cursor', next);
      const body = await page(client, `?${params.toString()}`);
      envelopes.push(...body.data);
      expect(typeof body.meta.nextCursor).toBe('string');
      next = body.meta.nextCursor;
      if (!body.meta.hasMore) return { envelopes, cursor: next };
    }
  };

  /** A candidate invited, registered, started, through both tests, one result unlocked. */
  const journey = async (client: Client, assessmentId: string, label: string) => {
    const email = uniqueEmail(label);
    const invited = await w.invite(client, assessmentId, [{ email, firstName: 'Ada', surname: label }]);
    const { candidateId } = await w.register({ invitationUrl: invited.body.data[0].invitationUrl });
    await w.start(candidateId, assessmentId);
    const first = await w.complete(candidateId, assessmentId, TEST_SLUGS[0], { scorePercentage: 81.5 });
    const second = await w.complete(candidateId, assessmentId, TEST_SLUGS[1]);
    await w.unlock(first.resultId);
    return { email, candidateId, resultIds: [first.resultId, second.resultId] };
  };

  it('lists exactly what the webhooks delivered, same ids and bodies, in the log\'s order, for each mode', async () => {
    const ws = await w.workspace({ url: receiver.url });
    const liveAssessment = await w.assessment(ws.live);
    const sandboxAssessment = await w.assessment(ws.sandbox);
    await journey(ws.live, liveAssessment.id, 'feed-live-1');
    await journey(ws.sandbox, sandboxAssessment.id, 'feed-sandbox-1');
    await journey(ws.live, liveAssessment.id, 'feed-live-2');
    // A second invitation in one request, and a candidate who only registers.
    await w.invite(ws.live, liveAssessment.id, [{ email: uniqueEmail('feed-extra'), firstName: 'Bo', surname: 'Extra' }]);

    const delivered = await receiver.waitFor((requests) => requests.filter((request) => request.body?.workspaceId === ws.id).length >= 22, 20_000, '22 webhooks');
    const received = delivered.filter((request) => request.body?.workspaceId === ws.id);
    expect(received).toHaveLength(22);
    const bodies = new Map(received.map((request: ReceivedWebhook) => [request.body.id as string, request.body as Envelope]));

    const live = (await readAll(ws.live, '', undefined, 5)).envelopes;
    const sandbox = (await readAll(ws.sandbox, '', undefined, 5)).envelopes;
    expect(live).toHaveLength(15);
    expect(sandbox).toHaveLength(7);
    expect(live.every((envelope) => envelope.sandbox === undefined && !('sandbox' in envelope))).toBe(true);
    expect(sandbox.every((envelope) => envelope.sandbox === true)).toBe(true);
    // Same ids, same bodies, field for field.
    expect(new Set([...live, ...sandbox].map((envelope) => envelope.id))).toStrictEqual(new Set(bodies.keys()));
    for (const envelope of [...live, ...sandbox]) expect(envelope).toStrictEqual(bodies.get(envelope.id));

    // The log's order: this world was written one request after another, so it is the order of the events' times.
    for (const list of [live, sandbox]) {
      const times = list.map((envelope) => envelope.createdAt);
      expect(times).toStrictEqual([...times].sort());
    }
    // Within one candidate, the order things happened in.
    const firstCandidate = live.filter((envelope) => JSON.stringify(envelope.data).includes('feed-live-1'));
    expect(firstCandidate.map((envelope) => envelope.event)).toStrictEqual([
      'candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked',
    ]);
    for (const envelope of [...live, ...sandbox]) expect(envelope.createdAt).toMatch(ISO_TIME);

    // One event by id, as listed.
    const one = live[3] as Envelope;
    const got = await ws.live.get(`/v1/events/${one.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toStrictEqual({ data: one });
  });

  it('keeps an envelope as it was made: an unlock adds resultUnlocked and changes nothing listed before it', async () => {
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.live);
    const email = uniqueEmail('locked');
    const invited = await w.invite(ws.live, assessment.id, [{ email, firstName: 'Lo', surname: 'Cked' }]);
    const { candidateId } = await w.register({ invitationUrl: invited.body.data[0].invitationUrl });
    await w.start(candidateId, assessment.id);
    const first = await w.complete(candidateId, assessment.id, TEST_SLUGS[0], { scorePercentage: 64 });
    await w.complete(candidateId, assessment.id, TEST_SLUGS[1]);
    const before = await readAll(ws.live, '');
    const completed = before.envelopes.filter((envelope) => envelope.event === 'testCompleted');
    expect(completed).toHaveLength(2);
    for (const envelope of completed) expect(envelope.data.result).toMatchObject(LOCKED);
    expect(before.envelopes.find((envelope) => envelope.event === 'assessmentCompleted')?.data).toMatchObject({ unlocked: false });

    const unlocked = await w.unlock(first.resultId);
    const after = await readAll(ws.live, '');
    expect(after.envelopes.slice(0, before.envelopes.length)).toStrictEqual(before.envelopes);
    expect(after.envelopes.slice(before.envelopes.length)).toHaveLength(1);
    const added = after.envelopes.at(-1) as Envelope;
    expect(added.event).toBe('resultUnlocked');
    expect(added.data.result).toMatchObject({ id: first.resultId, unlocked: true, unlockedAt: unlocked.unlockedAt, scorePercentage: 64 });
    // The public result shows the scores now; the feed's testCompleted still does not.
    const results = (await ws.live.get(`/v1/results?assessment=${assessment.id}`)).body.data as { id: string; unlocked: boolean }[];
    expect(results.find((result) => result.id === first.resultId)?.unlocked).toBe(true);
    const stillLocked = completed.find((envelope) => envelope.data.result.id === first.resultId) as Envelope;
    expect((await ws.live.get(`/v1/events/${stillLocked.id}`)).body.data).toStrictEqual(stillLocked);
    // Polling from the cursor stored before the unlock finds just the new event.
    const polled = await readAll(ws.live, '', before.cursor);
    expect(polled.envelopes).toStrictEqual([added]);
  });

  it('pages while events are appended without skipping or repeating any', async () => {
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.live);
    // Within the key's 120 requests a minute: 30 invitations, the pages, the checks.
    const total = 30;
    let invited = 0;
    const writer = (async () => {
      for (let i = 0; i < total; i += 1) {
        await w.invite(ws.live, assessment.id, [{ email: uniqueEmail(`paging-${i}`), firstName: 'P', surname: String(i) }]);
        invited += 1;
      }
    })();
    let written = false;
    void writer.then(() => { written = true; });
    const seen: Envelope[] = [];
    let cursor: string | undefined;
    let pages = 0;
    // Small pages, read as fast as they come while the writer goes on, until a page read after the
    // writer finished says nothing more is there.
    for (;;) {
      const finished = written;
      const body = await page(ws.live, `?limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`);
      pages += 1;
      seen.push(...body.data);
      cursor = body.meta.nextCursor;
      if (!body.meta.hasMore && finished) break;
      if (!body.meta.hasMore) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await writer;
    expect(invited).toBe(total);
    expect(pages).toBeGreaterThan(total / 2);
    const ids = seen.map((envelope) => envelope.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(total);
    // Exactly the feed read in one go afterwards, in the same order.
    expect(ids).toStrictEqual((await readAll(ws.live, '')).envelopes.map((envelope) => envelope.id));
    // An empty page keeps the place: the cursor it hands back reads on from the same point.
    const empty = await page(ws.live, `?cursor=${cursor}`);
    expect(empty).toStrictEqual({ data: [], meta: { nextCursor: expect.any(String), hasMore: false } });
    await w.invite(ws.live, assessment.id, [{ email: uniqueEmail('after-empty'), firstName: 'A', surname: 'E' }]);
    const later = await page(ws.live, `?cursor=${empty.meta.nextCursor}`);
    expect(later.data.map((envelope) => envelope.event)).toStrictEqual(['candidateInvited']);
  });

  it('filters by type and since, and refuses names it does not know', async () => {
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.live);
    await journey(ws.live, assessment.id, 'filters-1');
    const all = (await readAll(ws.live, '')).envelopes;
    expect(all).toHaveLength(7);

    const tests = (await readAll(ws.live, 'type=testCompleted')).envelopes;
    expect(tests).toStrictEqual(all.filter((envelope) => envelope.event === 'testCompleted'));
    const two = (await readAll(ws.live, 'type=candidateCreated,resultUnlocked')).envelopes;
    expect(two).toStrictEqual(all.filter((envelope) => ['candidateCreated', 'resultUnlocked'].includes(envelope.event)));
    expect((await readAll(ws.live, 'type=candidateCreated, resultUnlocked,candidateCreated')).envelopes).toStrictEqual(two);

    // since: inclusive, on createdAt. Move the clock so that a later journey is clearly after.
    const now = await w.app.call('POST', '/internal/clock', { advanceSeconds: 3600 });
    const from: string = now.body.data.now;
    await journey(ws.live, assessment.id, 'filters-2');
    const since = (await readAll(ws.live, `since=${encodeURIComponent(from)}`)).envelopes;
    expect(since).toHaveLength(7);
    expect(since.every((envelope) => envelope.createdAt >= from)).toBe(true);
    const full = (await readAll(ws.live, '')).envelopes;
    const third = (all[2] as Envelope).createdAt;
    expect((await readAll(ws.live, `since=${encodeURIComponent(third)}`)).envelopes).toStrictEqual(full.filter((envelope) => envelope.createdAt >= third));
    expect((await readAll(ws.live, `since=${encodeURIComponent(from)}&type=assessmentStarted`)).envelopes.map((envelope) => envelope.event)).toStrictEqual(['assessmentStarted']);

    // A cursor serves whatever filters come with it: it is a place in the workspace's log.
    const firstPage = await page(ws.live, '?limit=2');
    const filteredOn = await page(ws.live, `?type=resultUnlocked&cursor=${firstPage.meta.nextCursor}`);
    expect(filteredOn.data.map((envelope) => envelope.event)).toStrictEqual(['resultUnlocked', 'resultUnlocked']);

    for (const query of ['type=bogus', 'type=', 'type=testCompleted,', 'type=testCompleted&type=resultUnlocked', 'since=yesterday', 'limit=0', 'limit=101', 'cursor=not-a-cursor']) {
      const answer = await ws.live.get(`/v1/events?${query}`);
      expect([query, answer.status]).toStrictEqual([query, 400]);
      expect(answer.body.error.code).toBe(query.startsWith('cursor') ? 'invalid_cursor' : 'invalid_parameter');
    }
  });

  it('keeps live and sandbox apart, and answers 404 for another workspace\'s or mode\'s event and 400 for its cursor', async () => {
    const ws = await w.workspace();
    const other = await w.workspace();
    const live = await w.assessment(ws.live);
    const sandbox = await w.assessment(ws.sandbox);
    await w.invite(ws.live, live.id, [{ email: uniqueEmail('apart-live'), firstName: 'L', surname: 'Ive' }]);
    await w.invite(ws.sandbox, sandbox.id, [{ email: uniqueEmail('apart-sandbox'), firstName: 'S', surname: 'Andbox' }]);
    const livePage = await page(ws.live);
    const sandboxPage = await page(ws.sandbox);
    expect(livePage.data.map((envelope) => envelope.data.assessment.id)).toStrictEqual([live.id]);
    expect(sandboxPage.data.map((envelope) => envelope.data.assessment.id)).toStrictEqual([sandbox.id]);
    expect(sandboxPage.data[0]?.sandbox).toBe(true);
    expect(await page(other.live)).toStrictEqual({ data: [], meta: { nextCursor: expect.any(String), hasMore: false } });

    const liveId = (livePage.data[0] as Envelope).id;
    const sandboxId = (sandboxPage.data[0] as Envelope).id;
    for (const [client, id] of [[ws.sandbox, liveId], [ws.live, sandboxId], [other.live, liveId], [other.sandbox, sandboxId], [ws.live, 'no-such-event']] as const) {
      const answer = await client.get(`/v1/events/${id}`);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('not_found');
    }
    // A cursor of another workspace or mode (or another list) is refused.
    for (const [client, cursor] of [[ws.sandbox, livePage.meta.nextCursor], [other.live, livePage.meta.nextCursor]] as const) {
      const answer = await client.get(`/v1/events?cursor=${cursor}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_cursor');
    }
    const candidates = await ws.live.get('/v1/candidates?limit=1');
    const results = await ws.live.get(`/v1/results?limit=1&cursor=${livePage.meta.nextCursor}`);
    expect([candidates.status, results.status, results.body.error.code]).toStrictEqual([200, 400, 'invalid_cursor']);
  });

  it('forgets a deleted test candidate: none of their events is listed or found, their invitations included', async () => {
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.sandbox);
    const second = await w.assessment(ws.sandbox);
    const gone = await journey(ws.sandbox, assessment.id, 'deleted');
    // A pending invitation of the same person to another assessment goes too.
    await w.invite(ws.sandbox, second.id, [{ email: gone.email, firstName: 'Ada', surname: 'deleted' }]);
    const kept = await journey(ws.sandbox, assessment.id, 'kept');
    const before = (await readAll(ws.sandbox, '')).envelopes;
    expect(before).toHaveLength(15);
    const theirs = before.filter((envelope) => JSON.stringify(envelope).includes(gone.email) || JSON.stringify(envelope).includes(gone.candidateId));
    expect(theirs).toHaveLength(8);

    const deleted = await w.app.call('DELETE', `/internal/candidates/${gone.candidateId}`);
    expect(deleted.status).toBe(204);
    const after = (await readAll(ws.sandbox, '')).envelopes;
    expect(after).toStrictEqual(before.filter((envelope) => !theirs.includes(envelope)));
    expect(JSON.stringify(after)).not.toContain(gone.email);
    expect(JSON.stringify(after)).not.toContain(gone.candidateId);
    expect(JSON.stringify(after)).toContain(kept.email);
    for (const envelope of theirs) expect((await ws.sandbox.get(`/v1/events/${envelope.id}`)).status).toBe(404);
    // Invited again, the address is a new person whose events are listed.
    await w.invite(ws.sandbox, assessment.id, [{ email: gone.email, firstName: 'Ada', surname: 'again' }]);
    const again = (await readAll(ws.sandbox, '')).envelopes;
    expect(again.filter((envelope) => JSON.stringify(envelope).includes(gone.email)).map((envelope) => envelope.data.invitation.surname)).toStrictEqual(['again']);
  });

  it('serves one stored cursor with any filters, hands the same place back when nothing comes, and refuses what does not belong', async () => {
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.live);
    const invited = await w.invite(ws.live, assessment.id, [{ email: uniqueEmail('stored'), firstName: 'Ann' }]);
    const { candidateId } = await w.register({ invitationUrl: invited.body.data[0].invitationUrl });
    await w.start(candidateId, assessment.id);
    const result = await w.complete(candidateId, assessment.id, TEST_SLUGS[0]);
    await w.unlock(result.resultId);
    const all = await page(ws.live, '?limit=100');
    expect(all.data.map((envelope) => envelope.event)).toStrictEqual(['candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted', 'resultUnlocked']);
    expect(all.meta).toStrictEqual({ nextCursor: expect.any(String), hasMore: false });

    const first = await page(ws.live, '?limit=2');
    expect(first.data).toStrictEqual(all.data.slice(0, 2));
    expect(first.meta.hasMore).toBe(true);
    const stored = encodeURIComponent(first.meta.nextCursor);
    // The cursor a page without filters gave serves filtered polls, both filters applying after it.
    const filtered = await page(ws.live, `?cursor=${stored}&type=testCompleted,resultUnlocked`);
    expect(filtered.data.map((envelope) => envelope.event)).toStrictEqual(['testCompleted', 'resultUnlocked']);
    const unlockedAt = (all.data[4] as Envelope).createdAt;
    expect((await page(ws.live, `?cursor=${stored}&since=${encodeURIComponent(unlockedAt)}`)).data.map((envelope) => envelope.event)).toStrictEqual(['resultUnlocked']);
    // Nothing after the last one: the same place again, to poll from later.
    const end = await page(ws.live, `?cursor=${encodeURIComponent(filtered.meta.nextCursor)}`);
    expect(end).toStrictEqual({ data: [], meta: { nextCursor: filtered.meta.nextCursor, hasMore: false } });
    // One unknown name among known ones is refused whole.
    expect((await ws.live.get('/v1/events?type=testCompleted,candidateDeleted')).body.error.code).toBe('invalid_parameter');
  });

  it('lists events for 30 days: older ones are neither listed nor found', async () => {
    const ws = await w.workspace();
    const assessment = await w.assessment(ws.live);
    await w.invite(ws.live, assessment.id, [{ email: uniqueEmail('old'), firstName: 'O', surname: 'Ld' }]);
    const old = (await page(ws.live)).data[0] as Envelope;
    await w.app.call('POST', '/internal/clock', { advanceSeconds: 29 * 24 * 3600 });
    expect((await page(ws.live)).data).toStrictEqual([old]);
    await w.app.call('POST', '/internal/clock', { advanceSeconds: 2 * 24 * 3600 });
    await w.invite(ws.live, assessment.id, [{ email: uniqueEmail('new'), firstName: 'N', surname: 'Ew' }]);
    const listed = (await page(ws.live)).data;
    expect(listed.map((envelope) => envelope.data.invitation.surname)).toStrictEqual(['Ew']);
    expect((await ws.live.get(`/v1/events/${old.id}`)).status).toBe(404);
    expect((await page(ws.live, `?since=${encodeURIComponent('2020-01-01T00:00:00Z')}`)).data).toStrictEqual(listed);
  });
});
