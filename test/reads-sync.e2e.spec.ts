import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ReadsWorld, SLUGS, defaultScores, type KeyPool, type Workspace } from './support/reads-world.js';

/**
 * The sync pattern of API 4.3, followed by a client while the world keeps moving:
 * (a) GET /v1/results?since=<last stored completedAt>, following meta.nextCursor to the end;
 * (b) GET /v1/candidates?updated_since=<time of the last check> to pick up later unlocks.
 * Rows seen twice are matched on `id` and updated. In the end the copy equals the server.
 */
jest.setTimeout(60_000);

const [FIRST, SECOND, THIRD] = SLUGS;
const enc = encodeURIComponent;

let world: ReadsWorld;

beforeAll(async () => {
  world = await ReadsWorld.start();
});

afterAll(async () => {
  await world?.stop();
});

type Hook = () => Promise<void>;

/** An integrator's copy of GET /v1/results, kept with the documented sync pattern. */
class SyncClient {
  readonly rows = new Map<string, any>();
  lastCompletedAt: string | null = null;
  lastCheck: string | null = null;
  received = 0;
  merged = 0;
  requests = 0;

  constructor(private readonly pool: KeyPool, private readonly limit: number) {}

  private upsert(row: any): void {
    this.received += 1;
    if (this.rows.has(row.id)) this.merged += 1;
    this.rows.set(row.id, row);
  }

  private async follow(path: string, onRows: (rows: any[]) => void, betweenPages: Hook): Promise<void> {
    let cursor: string | null = null;
    do {
      const body = await this.pool.ok(cursor === null ? path : `${path}&cursor=${enc(cursor)}`);
      this.requests += 1;
      onRows(body.data);
      cursor = body.meta.nextCursor;
      if (cursor !== null) await betweenPages();
    } while (cursor !== null);
  }

  async sync(betweenPages: Hook = async () => undefined): Promise<void> {
    // Same host as the service: the client's clock is the service's clock.
    const checkStartedAt = new Date().toISOString();
    const since = this.lastCompletedAt === null ? '' : `&since=${enc(this.lastCompletedAt)}`;
    await this.follow(`/v1/results?limit=${this.limit}${since}`, (rows) => {
      for (const row of rows) {
        this.upsert(row);
        if (this.lastCompletedAt === null || row.completedAt > this.lastCompletedAt) this.lastCompletedAt = row.completedAt;
      }
    }, betweenPages);
    if (this.lastCheck !== null) {
      await this.follow(`/v1/candidates?limit=${this.limit}&updated_since=${enc(this.lastCheck)}`, (candidates) => {
        for (const candidate of candidates) {
          const ref = { id: candidate.id, email: candidate.email, firstName: candidate.firstName, surname: candidate.surname };
          for (const entry of candidate.assessments) {
            for (const result of entry.results) {
              this.upsert({ ...result, candidate: ref, assessment: { id: entry.id, name: entry.name }, reportUrl: candidate.reportUrl });
            }
          }
        }
      }, betweenPages);
    }
    this.lastCheck = checkStartedAt;
  }

  copy(): any[] {
    return [...this.rows.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  }
}

/** The world moving on: candidates finishing their tests one by one, results unlocked in between. */
class Actor {
  private readonly pending: { candidateId: string; assessmentId: string; slug: string }[] = [];
  private readonly locked: string[] = [];
  unlocks = 0;
  completions = 0;
  private step = 0;

  constructor(private readonly keepLocked: number) {}

  add(candidateId: string, assessmentId: string, slugs: readonly string[]): void {
    for (const slug of slugs) this.pending.push({ candidateId, assessmentId, slug });
  }

  get done(): boolean {
    return this.pending.length === 0 && this.locked.length <= this.keepLocked;
  }

  /** Alternates: two tests finished, then the oldest locked result unlocked. */
  async act(): Promise<void> {
    this.step += 1;
    const unlockNow = (this.step % 3 === 0 || this.pending.length === 0) && this.locked.length > this.keepLocked;
    if (unlockNow) {
      await world.unlock(this.locked.shift()!);
      this.unlocks += 1;
      return;
    }
    // Round-robin over people so several candidates are in progress at once.
    const next = this.pending.shift();
    if (!next) return;
    const done = await world.complete(next.candidateId, next.assessmentId, next.slug, defaultScores(this.completions));
    this.completions += 1;
    this.locked.push(done.resultId);
  }
}

const scenario = async (name: string, people: number) => {
  const ws: Workspace = await world.workspace({ name, keys: 2 });
  const A = await world.assessment(ws.live, `${name} A`, [FIRST, SECOND, THIRD]);
  const B = await world.assessment(ws.live, `${name} B`, [FIRST]);
  const actor = new Actor(2);
  const queue: [string, string, readonly string[]][] = [];
  for (let i = 0; i < people; i += 1) {
    const onA = i % 2 === 0;
    const assessment = onA ? A : B;
    const id = await world.candidate(ws.live, assessment.id, { email: `${name.toLowerCase()}${i}@example.com`, firstName: `P${i}`, surname: name });
    queue.push([id, assessment.id, onA ? [FIRST, SECOND, THIRD] : [FIRST]]);
  }
  // Interleave people's tests: one test of each person in turn.
  for (let round = 0; round < 3; round += 1) {
    for (const [id, assessmentId, slugs] of queue) if (slugs[round]) actor.add(id, assessmentId, [slugs[round]!]);
  }
  return { ws, actor };
};

const serverState = async (pool: KeyPool) => {
  const rows = await pool.all('/v1/results?limit=100');
  return [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
};

describe('sync pattern (API 4.3)', () => {
  it('a client syncing after every change, with changes between its pages, ends equal to the server', async () => {
    const { ws, actor } = await scenario('Often', 5);
    const client = new SyncClient(ws.live, 2);
    await client.sync();
    expect(client.rows.size).toBe(0);
    for (let i = 0; i < 60 && !actor.done; i += 1) {
      await actor.act();
      await client.sync(async () => {
        if (!actor.done) await actor.act();
      });
    }
    expect(actor.done).toBe(true);
    await client.sync();
    const server = await serverState(ws.live);
    expect(server).toHaveLength(actor.completions);
    // Three people on A (three tests), two on B (one test); all but two results unlocked.
    expect(actor.completions).toBe(11);
    expect(actor.unlocks).toBe(9);
    expect(server.filter((row) => row.unlocked)).toHaveLength(9);
    expect(client.copy()).toEqual(server);
    // Inclusive `since` and `updated_since` handed some rows over more than once: merged on id.
    expect(client.merged).toBeGreaterThan(0);
    expect(client.rows.size).toBe(server.length);
  });

  it('a client syncing rarely, one row per page, with bursts of changes in between, ends equal to the server', async () => {
    const { ws, actor } = await scenario('Rarely', 6);
    const client = new SyncClient(ws.live, 1);
    for (let i = 0; i < 30 && !actor.done; i += 1) {
      for (let burst = 0; burst < 3; burst += 1) await actor.act();
      let pages = 0;
      await client.sync(async () => {
        pages += 1;
        if (pages % 2 === 0 && !actor.done) await actor.act();
      });
    }
    expect(actor.done).toBe(true);
    await client.sync();
    const server = await serverState(ws.live);
    expect(actor.completions).toBe(12);
    expect(server).toHaveLength(12);
    expect(actor.unlocks).toBe(10);
    expect(server.filter((row) => row.unlocked)).toHaveLength(10);
    expect(client.copy()).toEqual(server);
    expect(client.merged).toBeGreaterThan(0);
  });

  it('a result unlocked long after it was completed is picked up through updated_since, not through since', async () => {
    const ws = await world.workspace({ name: 'Late', keys: 2 });
    const A = await world.assessment(ws.live, 'Late A', [FIRST, SECOND]);
    const early = await world.candidate(ws.live, A.id, { email: 'early@example.com' });
    const late = await world.candidate(ws.live, A.id, { email: 'late@example.com' });
    const old = await world.complete(early, A.id, FIRST);
    const client = new SyncClient(ws.live, 5);
    await client.sync();
    await world.complete(late, A.id, FIRST);
    await client.sync();
    expect(client.rows.get(old.resultId).unlocked).toBe(false);
    // Unlocking the oldest result: `since` (last completedAt) no longer reaches it.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const unlocked = await world.unlock(old.resultId);
    const sinceOnly = (await ws.live.ok(`/v1/results?since=${enc(client.lastCompletedAt!)}`)).data;
    expect(sinceOnly.map((row: any) => row.id)).not.toContain(old.resultId);
    const changed = (await ws.live.ok(`/v1/candidates?updated_since=${enc(client.lastCheck!)}`)).data;
    expect(changed.map((c: any) => c.id)).toEqual([early]);
    await client.sync();
    expect(client.rows.get(old.resultId)).toMatchObject({ unlocked: true, unlockedAt: unlocked.unlockedAt, scorePercentage: 50 });
    expect(client.copy()).toEqual(await serverState(ws.live));
  });
});
