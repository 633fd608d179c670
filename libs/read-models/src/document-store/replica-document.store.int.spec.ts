import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import pg from 'pg';
import pino from 'pino';
import { PrimaryLocator, parsePostgresUrl } from '#platform';
import { REPLICA_READ_CHANNEL, type ReplicaReadObserved } from '#platform/instrumentation/channels.js';
import { type ThrowawayPostgres, type ThrowawayStandby, throwawayPostgres, throwawayStandby } from '#platform/testing/throwaway-postgres.js';
import type { DocumentStore } from '../shared/document-store.port.js';
import type { CollectionDefinition } from '../shared/projection.js';
import { createPostgresDocumentStore } from './postgres-document.store.js';
import { createReplicaDocumentStore, REPLICA_MAX_WAIT_MS, type ReplicaDocumentStore } from './replica-document.store.js';

/*
 * A primary of the test's own and a hot standby streaming from it (asynchronously: it really lags
 * behind each commit). Who served a read is told by its answer: the store reads the standby in the
 * schema `standby_marked`, whose documents say `from: 'standby'`, and falls back to the primary's
 * `public` ones, which say `from: 'primary'`; the test writes each document to both, on the primary.
 */
interface Thing { id: string; n: number; from: 'primary' | 'standby' }

const things: CollectionDefinition = { name: 'things', indexes: [], served: (doc) => JSON.stringify(doc) };

const pause = (ms: number) => new Promise((resolveLater) => setTimeout(resolveLater, ms));

describe('ReplicaDocumentStore: public reads on a standby that has replayed every acknowledged write', () => {
  let primary: ThrowawayPostgres;
  let standby: ThrowawayStandby;
  let primaryPool: pg.Pool;
  let replicaPool: pg.Pool;
  let locator: PrimaryLocator;
  let onPrimary: DocumentStore;
  let marked: DocumentStore;
  /** Waits for the standby as long as a loaded machine may need: the tests that expect it to serve. */
  let store: ReplicaDocumentStore;
  /** The service's own bound (REPLICA_MAX_WAIT_MS): the tests of the wait and the fallback. */
  let bounded: ReplicaDocumentStore;
  const reports: ReplicaReadObserved[] = [];
  const lines: { level: number; msg: string }[] = [];
  const record = (message: unknown) => reports.push(message as ReplicaReadObserved);
  let relocations = 0;
  let written = 0;

  beforeAll(async () => {
    primary = await throwawayPostgres();
    standby = await throwawayStandby(primary);
    primaryPool = new pg.Pool({ connectionString: primary.url, max: 4 });
    onPrimary = createPostgresDocumentStore({ pool: primaryPool, schema: 'public', deployment: 'multi-process' });
    marked = createPostgresDocumentStore({ pool: primaryPool, schema: 'standby_marked', deployment: 'multi-process' });
    await onPrimary.prepare([things]);
    await marked.prepare([things]);
    locator = new PrimaryLocator(parsePostgresUrl(`postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=prefer-standby`), { probeTimeoutMs: 1000 });
    await locator.locate();
    replicaPool = new pg.Pool({ ...locator.poolOptions(), max: 4, connectionTimeoutMillis: 2000 });
    replicaPool.on('error', () => undefined);
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as { level: number; msg: string }); } });
    const replicaStore = (maxWaitMs?: number) => createReplicaDocumentStore({
      primary: onPrimary, primaryPool, replicaPool, schema: 'standby_marked', logger, maxWaitMs,
      standbyKnown: () => locator.matches,
      relocate: () => {
        relocations += 1;
        void locator.locate().catch(() => undefined);
      },
    });
    // The standby replays each commit asynchronously; with every Jest worker busy it was once more than
    // REPLICA_MAX_WAIT_MS behind a write just made (the primary served, rightly, and the test failed).
    store = replicaStore(10_000);
    bounded = replicaStore();
    subscribe(REPLICA_READ_CHANNEL.name, record);
  }, 60_000);

  beforeEach(() => {
    reports.length = 0;
    lines.length = 0;
  });

  afterAll(async () => {
    unsubscribe(REPLICA_READ_CHANNEL.name, record);
    await replicaPool?.end().catch(() => undefined);
    await onPrimary?.close();
    await marked?.close();
    await primaryPool?.end();
    standby?.destroy();
    primary?.destroy();
  });

  /** An acknowledged write: committed on the primary, in both schemas, before it returns. */
  const write = async (id: string): Promise<number> => {
    written += 1;
    const n = written;
    await onPrimary.applyBatch([], [{ collection: 'things', id, doc: { id, n, from: 'primary' } }], BigInt(n));
    await marked.applyBatch([], [{ collection: 'things', id, doc: { id, n, from: 'standby' } }], BigInt(n));
    return n;
  };

  const inSession = <T>(work: () => Promise<T>): Promise<T> => store.session(work);

  it('serves a GET\'s reads from the standby, each after it replayed the primary\'s position: every write acknowledged before shows', async () => {
    for (let i = 0; i < 25; i += 1) {
      const n = await write(`t${i}`);
      // A read right after the write: the standby replays asynchronously, so it is often behind here.
      expect(await inSession(() => store.get<Thing>('things', `t${i}`))).toEqual({ id: `t${i}`, n, from: 'standby' });
    }
    expect(reports.filter((report) => report.servedBy !== 'replica')).toEqual([]);
    const n = await write('listed');
    const [served, many, count, found] = await inSession(async () => [
      await store.findServed('things', { where: [{ field: 'id', op: 'eq', value: 'listed' }], orderBy: [{ field: 'id', direction: 'asc' }], limit: 10 }, (doc) => JSON.stringify(doc)),
      await store.getMany<Thing>('things', ['listed', 't0']),
      await store.count('things', [{ field: 'id', op: 'eq', value: 'listed' }]),
      await store.find<Thing>('things', { where: [{ field: 'id', op: 'eq', value: 'listed' }], orderBy: [{ field: 'id', direction: 'asc' }], limit: 10 }),
    ] as const);
    expect(served.map((row) => JSON.parse(row.json) as Thing)).toEqual([{ id: 'listed', n, from: 'standby' }]);
    expect(many.get('listed')).toEqual({ id: 'listed', n, from: 'standby' });
    expect(count).toBe(1);
    expect(found).toEqual([{ id: 'listed', n, from: 'standby' }]);
    expect(reports.slice(-4).map((report) => report.servedBy)).toEqual(['replica', 'replica', 'replica', 'replica']);
  });

  it('concurrent GETs share the primary\'s position only when it was read after each began', async () => {
    await write('shared');
    const before = store.positionsRead;
    // Thirty GETs begin together: the first reads a position, the others one read after it (they began while it ran).
    const answers = await Promise.all(Array.from({ length: 30 }, () => inSession(() => store.get<Thing>('things', 'shared'))));
    expect(answers.every((answer) => answer?.id === 'shared')).toBe(true);
    expect(store.positionsRead - before).toBe(2);
    expect(reports.filter((report) => report.servedBy !== 'replica')).toEqual([]);
  });

  it('reads outside a GET\'s session go to the primary, at once and without a position', async () => {
    await standby.pauseReplay();
    try {
      const n = await write('outside');
      const before = store.positionsRead;
      expect(await store.get<Thing>('things', 'outside')).toEqual({ id: 'outside', n, from: 'primary' });
      expect(store.positionsRead).toBe(before);
      expect(reports).toEqual([]);
    } finally {
      await standby.resumeReplay();
    }
  });

  it('waits for a standby that is behind, within the bound for the whole GET, then the primary serves: never a stale answer', async () => {
    await standby.pauseReplay();
    let n = 0;
    try {
      n = await write('behind');
      const started = performance.now();
      const answers = await bounded.session(async () => [
        await bounded.get<Thing>('things', 'behind'),
        await bounded.get<Thing>('things', 'behind'),
        await bounded.get<Thing>('things', 'behind'),
      ]);
      const took = performance.now() - started;
      expect(answers).toEqual([1, 2, 3].map(() => ({ id: 'behind', n, from: 'primary' })));
      // One wait for the GET, not one per read.
      expect(took).toBeGreaterThanOrEqual(REPLICA_MAX_WAIT_MS);
      expect(took).toBeLessThan(REPLICA_MAX_WAIT_MS + 200);
      expect(reports.map((report) => `${report.servedBy}:${report.reason}`)).toEqual(['primary:behind', 'primary:behind', 'primary:behind']);
      expect(reports[0]?.lagBytes).toBeGreaterThan(0);
    } finally {
      await standby.resumeReplay();
    }
    // Replaying again: the standby serves what it had to wait for.
    expect(await inSession(() => store.get<Thing>('things', 'behind'))).toEqual({ id: 'behind', n, from: 'standby' });
  });

  it('a standby that goes away: the primary serves at once, one line says so, and the standby serves again once it is back', async () => {
    const n = await write('away');
    standby.stop();
    try {
      for (let i = 0; i < 5; i += 1) expect(await inSession(() => store.get<Thing>('things', 'away'))).toEqual({ id: 'away', n, from: 'primary' });
      expect(reports.map((report) => report.servedBy)).toEqual(['primary', 'primary', 'primary', 'primary', 'primary']);
      expect(reports[0]?.reason).toBe('error');
      expect(reports.slice(1).every((report) => report.reason === 'no_standby')).toBe(true);
      expect(lines.filter((line) => line.level === 40).map((line) => line.msg)).toEqual(['the read replica is unavailable: public reads are served by the primary; asking again every second']);
      expect(relocations).toBeGreaterThan(0);
    } finally {
      standby.start();
    }
    const deadline = Date.now() + 10_000;
    let answer: Thing | null = null;
    while (Date.now() < deadline) {
      answer = await inSession(() => store.get<Thing>('things', 'away'));
      if (answer?.from === 'standby') break;
      await pause(200);
    }
    expect(answer).toEqual({ id: 'away', n, from: 'standby' });
    expect(lines.filter((line) => line.msg === 'public reads are served by the read replica again').length).toBe(1);
    expect(lines.filter((line) => line.level === 40).length).toBe(1);
  });

  it('a primary that is read-only (draining in a switchover) gives no position to wait for: its own read answers', async () => {
    const n = await write('draining');
    await primary.setReadOnly(true);
    try {
      expect(await inSession(() => store.get<Thing>('things', 'draining'))).toEqual({ id: 'draining', n, from: 'primary' });
      expect(reports.map((report) => `${report.servedBy}:${report.reason}`)).toEqual(['primary:error']);
    } finally {
      await primary.setReadOnly(false);
    }
    // Not the standby's fault: it is not left alone.
    expect(await inSession(() => store.get<Thing>('things', 'draining'))).toEqual({ id: 'draining', n, from: 'standby' });
  });

  // Last: a promoted standby stays a primary of its own.
  it('a standby promoted under its connections is not read as a standby: the primary serves, and its locator is asked again', async () => {
    expect(await inSession(() => store.get<Thing>('things', 't0'))).toMatchObject({ from: 'standby' });
    standby.promote();
    reports.length = 0;
    const n = await write('after-promotion');
    const before = relocations;
    expect(await inSession(() => store.get<Thing>('things', 'after-promotion'))).toEqual({ id: 'after-promotion', n, from: 'primary' });
    expect(reports.at(-1)).toMatchObject({ servedBy: 'primary', reason: 'no_standby' });
    // Reads go on; the store asks the locator again (at most every second), which then says no host is a standby.
    const deadline = Date.now() + 5000;
    while (locator.matches && Date.now() < deadline) {
      expect(await inSession(() => store.get<Thing>('things', 'after-promotion'))).toEqual({ id: 'after-promotion', n, from: 'primary' });
      await pause(100);
    }
    expect(relocations).toBeGreaterThan(before);
    expect(locator.matches).toBe(false);
    expect(reports.every((report) => report.servedBy === 'primary')).toBe(true);
  });
});
