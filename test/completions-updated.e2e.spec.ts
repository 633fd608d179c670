import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { type Deployment, deployments } from './support/deployments.js';
import { ReadsWorld, SLUGS, ids, shift, withOffset, type KeyPool, type Workspace } from './support/reads-world.js';

/**
 * API 1.2.0: a completion's `updatedAt` (the later of `completedAt` and the latest unlock of its
 * results) and `GET /v1/completions?updated_since=`. The simulated clock puts one day between the
 * steps, so each time selects a known set of rows. Every answer is checked against docs/openapi.json
 * by the test client.
 */
jest.setTimeout(90_000);

const DAY = 86_400;
const [FIRST, SECOND] = [SLUGS[0], SLUGS[1]];
const enc = encodeURIComponent;

const DEPLOYMENTS = deployments('completions-updated');

describe.each(DEPLOYMENTS)('completions updatedAt and updated_since on $name', (deployment) => {
  let database: Awaited<ReturnType<Deployment['database']>> | undefined;
  let world: ReadsWorld;
  let receiver: WebhookReceiver;
  let ws: Workspace;
  let live: KeyPool;
  let A: { id: string };
  let B: { id: string };
  /** Candidate ids: alice and carol on A (two tests), bob on B (one test). */
  const people = { alice: '', bob: '', carol: '' };
  const results = { aliceFirst: '', aliceSecond: '', bobFirst: '' };
  /** Completion ids (`candidateId:assessmentId`). */
  const done = { alice: '', bob: '', carol: '' };
  let aliceCompletedAt: string;
  let carolCompletedAt: string;
  let bobCompletedAt: string;
  let aliceUnlockedAt: string;

  const list = async (path: string): Promise<any[]> => (await live.ok(path)).data;
  const errorOf = async (pool: KeyPool, path: string) => {
    const answer = await pool.get(path);
    return { status: answer.status, code: answer.body?.error?.code };
  };

  beforeAll(async () => {
    database = await deployment.database();
    receiver = await startWebhookReceiver();
    world = await ReadsWorld.start({ SIMULATED_CLOCK: 'true', WEBHOOK_ALLOW_INSECURE: 'true', ...database.env });
    ws = await world.workspace({ name: 'Updated Ltd', keys: 3 });
    live = ws.live;
    await world.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: receiver.url, events: ['assessmentCompleted', 'resultUnlocked'] }, 200);
    A = await world.assessment(live, 'Assessment A', [FIRST, SECOND]);
    B = await world.assessment(live, 'Assessment B', [FIRST]);
    people.alice = await world.candidate(live, A.id, { email: 'alice@example.com' });
    people.bob = await world.candidate(live, B.id, { email: 'bob@example.com' });
    people.carol = await world.candidate(live, A.id, { email: 'carol@example.com' });
    done.alice = `${people.alice}:${A.id}`;
    done.bob = `${people.bob}:${B.id}`;
    done.carol = `${people.carol}:${A.id}`;

    await world.advance(DAY);
    results.aliceFirst = (await world.complete(people.alice, A.id, FIRST)).resultId;
    await world.advance(DAY);
    results.aliceSecond = (await world.complete(people.alice, A.id, SECOND)).resultId;
    await world.advance(DAY);
    results.bobFirst = (await world.complete(people.bob, B.id, FIRST)).resultId;
    await world.advance(DAY);
    await world.complete(people.carol, A.id, FIRST);
    await world.advance(DAY);
    await world.complete(people.carol, A.id, SECOND);
    const byId = new Map((await list('/v1/completions?limit=100')).map((row) => [row.id, row]));
    aliceCompletedAt = byId.get(done.alice).completedAt;
    bobCompletedAt = byId.get(done.bob).completedAt;
    carolCompletedAt = byId.get(done.carol).completedAt;
    // Alice finished first of all; her first result is unlocked last.
    await world.advance(DAY);
    aliceUnlockedAt = (await world.unlock(results.aliceFirst)).unlockedAt;
  });

  afterAll(async () => {
    await world?.stop();
    await receiver?.close();
    await database?.drop();
  });

  describe('updatedAt', () => {
    it('is completedAt until an unlock after it moves it; completedAt never moves', async () => {
      const rows = new Map((await list('/v1/completions?limit=100')).map((row) => [row.id, row]));
      expect(rows.get(done.alice)).toMatchObject({ completedAt: aliceCompletedAt, updatedAt: aliceUnlockedAt, unlocked: false });
      expect(rows.get(done.alice).results.map((result: any) => [result.id, result.unlocked, result.unlockedAt])).toEqual([
        [results.aliceFirst, true, aliceUnlockedAt], [results.aliceSecond, false, null],
      ]);
      expect(rows.get(done.bob)).toMatchObject({ completedAt: bobCompletedAt, updatedAt: bobCompletedAt });
      expect(rows.get(done.carol)).toMatchObject({ completedAt: carolCompletedAt, updatedAt: carolCompletedAt });
      expect(aliceCompletedAt < bobCompletedAt && bobCompletedAt < carolCompletedAt && carolCompletedAt < aliceUnlockedAt).toBe(true);
    });

    it('brings an unlocked completion back through updated_since, where since (on completedAt) no longer reaches it', async () => {
      // A client that polled `since` up to the last completion never sees Alice's unlock.
      expect(ids(await list(`/v1/completions?since=${enc(carolCompletedAt)}&order=asc`))).toEqual([done.carol]);
      const changed = await list(`/v1/completions?updated_since=${enc(shift(carolCompletedAt, 1))}&order=asc`);
      expect(ids(changed)).toEqual([done.alice]);
      expect(changed[0]).toMatchObject({ completedAt: aliceCompletedAt, updatedAt: aliceUnlockedAt, results: [{ unlocked: true }, { unlocked: false }] });
    });

    it('updated_since is inclusive and accepts every time form the other time parameters accept', async () => {
      expect(ids(await list(`/v1/completions?updated_since=${enc(aliceUnlockedAt)}`))).toEqual([done.alice]);
      expect(ids(await list(`/v1/completions?updated_since=${enc(shift(aliceUnlockedAt, 1))}`))).toEqual([]);
      expect(ids(await list(`/v1/completions?updated_since=${enc(carolCompletedAt)}&order=asc`))).toEqual([done.carol, done.alice]);
      expect(ids(await list(`/v1/completions?updated_since=${carolCompletedAt.slice(0, 10)}&order=asc`))).toEqual([done.carol, done.alice]);
      expect(ids(await list(`/v1/completions?updated_since=${withOffset(carolCompletedAt, 60).replace('+', '%2B')}&order=asc`))).toEqual([done.carol, done.alice]);
      expect(ids(await list(`/v1/completions?updated_since=${withOffset(carolCompletedAt, -480)}&order=asc`))).toEqual([done.carol, done.alice]);
    });

    it('orders by updatedAt: desc by default, asc for syncing forward (completedAt orders them otherwise)', async () => {
      const start = enc(shift(aliceCompletedAt, -1));
      expect(ids(await list('/v1/completions?order=asc'))).toEqual([done.alice, done.bob, done.carol]);
      expect(ids(await list(`/v1/completions?updated_since=${start}`))).toEqual([done.alice, done.carol, done.bob]);
      expect(ids(await list(`/v1/completions?updated_since=${start}&order=desc`))).toEqual([done.alice, done.carol, done.bob]);
      expect(ids(await list(`/v1/completions?updated_since=${start}&order=asc`))).toEqual([done.bob, done.carol, done.alice]);
    });

    it('combines with since, assessment and limit (all apply)', async () => {
      const start = enc(shift(aliceCompletedAt, -1));
      expect(ids(await list(`/v1/completions?updated_since=${start}&since=${enc(bobCompletedAt)}&order=asc`))).toEqual([done.bob, done.carol]);
      expect(ids(await list(`/v1/completions?updated_since=${enc(carolCompletedAt)}&since=${enc(bobCompletedAt)}`))).toEqual([done.carol]);
      expect(ids(await list(`/v1/completions?updated_since=${start}&assessment=${A.id}`))).toEqual([done.alice, done.carol]);
      expect(ids(await list(`/v1/completions?updated_since=${start}&assessment=${A.id}&order=asc`))).toEqual([done.carol, done.alice]);
      expect(ids(await list(`/v1/completions?updated_since=${start}&assessment=${B.id}`))).toEqual([done.bob]);
      expect(ids(await list(`/v1/completions?updated_since=${start}&limit=1`))).toEqual([done.alice]);
      expect(ids(await list(`/v1/completions?updated_since=${start}&limit=2&order=asc`))).toEqual([done.bob, done.carol]);
      expect(ids(await list(`/v1/completions?updated_since=${start}&assessment=${A.id}&since=${enc(bobCompletedAt)}&limit=1&order=asc`))).toEqual([done.carol]);
      expect(await errorOf(live, `/v1/completions?updated_since=${start}&assessment=asm_unknown`)).toEqual({ status: 404, code: 'not_found' });
    });

    it('refuses an updated_since that is not ISO 8601 with 400 invalid_parameter, and changes nothing', async () => {
      const before = await list('/v1/completions?limit=100');
      for (const value of ['yesterday', '2026-13-01', '2026-02-30', '2026-10-01T24:00:00Z', '2026-10-01T09:00Z', '1759309200', '2026-10-01T09:00:00+02:00', '']) {
        expect({ value, ...(await errorOf(live, `/v1/completions?updated_since=${value}`)) }).toEqual({ value, status: 400, code: 'invalid_parameter' });
      }
      expect(await list('/v1/completions?limit=100')).toEqual(before);
    });

    it('shows a sandbox key only test candidates, and answers the same under the alternative base path', async () => {
      const start = enc(shift(aliceCompletedAt, -1));
      expect((await ws.sandbox.ok(`/v1/completions?updated_since=${start}`)).data).toEqual([]);
      expect(await live.on('/api').ok(`/v1/completions?updated_since=${start}&order=asc`)).toEqual(await live.ok(`/v1/completions?updated_since=${start}&order=asc`));
    });
  });

  describe('envelopes', () => {
    it('assessmentCompleted carries updatedAt as it stood at the completion, in webhooks and in the feed; the answer moves on', async () => {
      const deliveries = await receiver.waitFor((requests) => requests.filter((request) => request.body?.event === 'assessmentCompleted').length >= 3, 20_000, 'three assessmentCompleted webhooks');
      const delivered = new Map(deliveries.filter((request) => request.body.event === 'assessmentCompleted').map((request) => [request.body.data.id, request.body]));
      expect(delivered.get(done.alice)?.data).toMatchObject({ completedAt: aliceCompletedAt, updatedAt: aliceCompletedAt, unlocked: false });
      expect(delivered.get(done.bob)?.data).toMatchObject({ completedAt: bobCompletedAt, updatedAt: bobCompletedAt });
      const feed = (await live.ok('/v1/events?type=assessmentCompleted&limit=100')).data as any[];
      expect(new Map(feed.map((envelope) => [envelope.data.id, envelope]))).toEqual(delivered);
      // The unlock's own envelope shows the result, not the completion.
      const unlocked = deliveries.find((request) => request.body?.event === 'resultUnlocked')?.body;
      expect(unlocked?.data).toMatchObject({ result: { id: results.aliceFirst, unlockedAt: aliceUnlockedAt } });
      expect(unlocked?.data.updatedAt).toBeUndefined();
    });

    it('a result unlocked before the last test: the completion is made with updatedAt = completedAt', async () => {
      const dave = await world.candidate(live, A.id, { email: 'dave@example.com' });
      await world.advance(DAY);
      const first = (await world.complete(dave, A.id, FIRST)).resultId;
      await world.advance(DAY);
      const { unlockedAt } = await world.unlock(first);
      await world.advance(DAY);
      await world.complete(dave, A.id, SECOND);
      const [row] = await list(`/v1/completions?updated_since=${enc(unlockedAt)}&assessment=${A.id}`);
      expect(row).toMatchObject({ id: `${dave}:${A.id}`, unlocked: false });
      expect(row.updatedAt).toBe(row.completedAt);
      expect(row.completedAt > unlockedAt).toBe(true);
      const requests = await receiver.waitFor((all) => all.some((request) => request.body?.data?.id === row.id), 20_000, 'dave completed');
      expect(requests.find((request) => request.body?.data?.id === row.id)?.body.data).toEqual(row);
    });
  });

  describe('syncing forward with updated_since (docs/integrating.md, "Lists without a cursor")', () => {
    it('a copy kept on updatedAt with a small page ends equal to the server after unlocks in between', async () => {
      const copy = new Map<string, any>();
      let t = shift(aliceCompletedAt, -1);
      const run = async (): Promise<void> => {
        for (let pages = 0; pages < 50; pages += 1) {
          const rows = await list(`/v1/completions?updated_since=${enc(t)}&order=asc&limit=2`);
          for (const row of rows) copy.set(row.id, row);
          if (rows.length < 2) return;
          const last = rows[rows.length - 1].updatedAt as string;
          // Every completion here has its own time: the tie case cannot arise.
          expect(last > t).toBe(true);
          t = last;
        }
        throw new Error('too many pages');
      };
      await run();
      for (const resultId of [results.aliceSecond, results.bobFirst]) {
        await world.advance(DAY);
        await world.unlock(resultId);
      }
      await run();
      const server = await list('/v1/completions?limit=100');
      expect([...copy.values()].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([...server].sort((a, b) => (a.id < b.id ? -1 : 1)));
      expect(copy.get(done.alice)).toMatchObject({ unlocked: true });
      expect(copy.get(done.bob)).toMatchObject({ unlocked: true });
    });
  });
});
