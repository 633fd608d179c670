import { CheckpointConflictError, rebuildCollectionName, type DocumentChange, type DocumentStore } from '../shared/document-store.port.js';
import { ordered, type CollectionDefinition } from '../shared/projection.js';

interface Person {
  id: string;
  team: string;
  joinedAt: string;
  leftAt: string | null;
  tags: string[];
  active: boolean;
}

/** What the API would serve for a person: a shape of its own, so a stored copy cannot pass for the document. */
const servePerson = (doc: object): string => {
  const { id, joinedAt } = doc as Person;
  return JSON.stringify({ who: id, since: joinedAt });
};

const people: CollectionDefinition = {
  name: 'people',
  indexes: [ordered(['team', 'asc'], ['joinedAt', 'desc'], ['id', 'desc']), { kind: 'contains', field: 'tags' }],
  served: servePerson,
  announceChanges: true,
};
const time = (minute: number): string => new Date(Date.UTC(2026, 0, 1) + minute * 60_000).toISOString();
const person = (id: string, minute: number, extra: Partial<Person> = {}): Person =>
  ({ id, team: 'red', joinedAt: time(minute), leftAt: null, tags: [], active: true, ...extra });
const put = (...docs: Person[]) => docs.map((doc) => ({ collection: 'people', id: doc.id, doc }));
const ids = (docs: readonly Person[]): string[] => docs.map((doc) => doc.id);

export interface OpenedStore {
  store: DocumentStore;
  close(): Promise<void>;
}

/** One behaviour for every adapter: each adapter's int spec runs this suite against a real store. */
/** `changeFeed`: whether the adapter tells watchers of changes (a store without one says its watches are never live). */
export const documentStoreContract = (adapter: string, open: () => Promise<OpenedStore>, { changeFeed = true } = {}): void => {
  describe(`DocumentStore contract (${adapter})`, () => {
    let opened: OpenedStore | undefined;
    let store: DocumentStore;
    let checkpointName = 0;
    const freshProjection = (): string => `projection-${(checkpointName += 1)}`;

    // Generous: an embedded PGlite runs initdb on first start, slow on a busy machine.
    beforeAll(async () => {
      opened = await open();
      store = opened.store;
    }, 60_000);
    afterAll(async () => {
      await opened?.close();
    });
    beforeEach(() => store.prepare([people], { fresh: true }));

    it('writes documents and checkpoints together, deletes on null, reads by id', async () => {
      const name = freshProjection();
      expect((await store.checkpoints([name])).get(name)).toBeNull();
      await store.applyBatch([name], put(person('a', 1), person('b', 2)), 5n);
      await store.applyBatch([name], [{ collection: 'people', id: 'a', doc: null }, ...put(person('b', 3))], 7n);
      expect(await store.get('people', 'a')).toBeNull();
      expect(await store.get('people', 'b')).toEqual(person('b', 3));
      expect([...(await store.getMany<Person>('people', ['a', 'b', 'zz'])).keys()]).toEqual(['b']);
      expect(await store.getForUpdate('people', ['a', 'b'])).toEqual(new Map([['b', { doc: person('b', 3), position: 7n }]]));
      expect((await store.checkpoints([name])).get(name)).toBe(7n);
      expect(await store.checkpoints([name, 'never-ran'])).toEqual(new Map([[name, 7n], ['never-ran', null]]));
    });

    it('never moves a checkpoint back', async () => {
      const name = freshProjection();
      await store.applyBatch([name], [], 10n);
      await store.applyBatch([name], [], 4n);
      expect((await store.checkpoints([name])).get(name)).toBe(10n);
    });

    it('refuses a batch whose expected checkpoints moved, writing nothing', async () => {
      const name = freshProjection();
      await store.applyBatch([name], [], 3n);
      const stale = store.applyBatch([name], put(person('x', 1)), 9n, { expectedCheckpoints: new Map([[name, 2n]]) });
      await expect(stale).rejects.toBeInstanceOf(CheckpointConflictError);
      expect(await store.get('people', 'x')).toBeNull();
      expect((await store.checkpoints([name])).get(name)).toBe(3n);
      await store.applyBatch([name], put(person('x', 1)), 9n, { expectedCheckpoints: new Map([[name, 3n]]) });
      expect((await store.checkpoints([name])).get(name)).toBe(9n);
    });

    it('filters with eq, gte, lte, notNull, contains and in, and counts', async () => {
      await store.applyBatch([], put(
        person('a', 1, { tags: ['x', 'y'] }),
        person('b', 2, { team: 'blue', tags: ['y'], active: false }),
        person('c', 3, { leftAt: time(9) }),
        person('d', 4, { tags: ['x'] }),
      ), 1n);
      const find = async (where: Parameters<DocumentStore['find']>[1]['where']) =>
        ids(await store.find<Person>('people', { where, orderBy: [{ field: 'id', direction: 'asc' }], limit: 10 }));
      expect(await find([{ field: 'team', op: 'eq', value: 'red' }])).toEqual(['a', 'c', 'd']);
      expect(await find([{ field: 'active', op: 'eq', value: false }])).toEqual(['b']);
      expect(await find([{ field: 'joinedAt', op: 'gte', value: time(2) }, { field: 'joinedAt', op: 'lte', value: time(3) }])).toEqual(['b', 'c']);
      expect(await find([{ field: 'leftAt', op: 'notNull' }])).toEqual(['c']);
      expect(await find([{ field: 'tags', op: 'contains', value: 'x' }])).toEqual(['a', 'd']);
      expect(await find([{ field: 'id', op: 'eq', value: 'd' }])).toEqual(['d']);
      expect(await find([{ field: 'team', op: 'in', values: ['blue'] }])).toEqual(['b']);
      expect(await find([{ field: 'id', op: 'in', values: ['d', 'b', 'zz'] }])).toEqual(['b', 'd']);
      expect(await find([{ field: 'team', op: 'in', values: ['blue', 'red'] }, { field: 'leftAt', op: 'notNull' }])).toEqual(['c']);
      expect(await store.count('people', [{ field: 'tags', op: 'contains', value: 'y' }])).toBe(2);
      expect(await store.count('people', [])).toBe(4);
    });

    it('pages by keyset exactly, ties broken by id, with rows inserted between pages', async () => {
      // Minute 5 holds three rows so that a page boundary falls inside the tie.
      await store.applyBatch([], put(person('p1', 1), person('p2', 5), person('p3', 5), person('p4', 5), person('p5', 7), person('p6', 9)), 1n);
      const orderBy = [{ field: 'joinedAt', direction: 'desc' }, { field: 'id', direction: 'desc' }] as const;
      const where = [{ field: 'team', op: 'eq', value: 'red' }] as const;
      const seen: string[] = [];
      let after: string[] | undefined;
      for (let page = 0; page < 10; page += 1) {
        const rows = await store.find<Person>('people', { where, orderBy, after, limit: 2 });
        if (rows.length === 0) break;
        seen.push(...ids(rows));
        const last = rows.at(-1);
        if (last === undefined) break;
        after = [last.joinedAt, last.id];
        if (page === 0) {
          // Newer than the cursor: belongs to pages already read, must not shift the next ones.
          await store.applyBatch([], put(person('new-top', 20), person('p2b', 5)), 1n);
        }
      }
      // p2b ties at minute 5 and sorts after p3 by id (desc: p4, p3, p2b, p2), so it is seen once.
      expect(seen).toEqual(['p6', 'p5', 'p4', 'p3', 'p2b', 'p2', 'p1']);
    });

    it('pages ascending and with mixed directions', async () => {
      await store.applyBatch([], put(person('a', 2), person('b', 1), person('c', 2), person('d', 3)), 1n);
      const ascending = await store.find<Person>('people', { where: [], orderBy: [{ field: 'joinedAt', direction: 'asc' }, { field: 'id', direction: 'asc' }], after: [time(2), 'a'], limit: 10 });
      expect(ids(ascending)).toEqual(['c', 'd']);
      const mixed = await store.find<Person>('people', { where: [], orderBy: [{ field: 'joinedAt', direction: 'asc' }, { field: 'id', direction: 'desc' }], after: [time(2), 'c'], limit: 10 });
      expect(ids(mixed)).toEqual(['a', 'd']);
      const offset = await store.find<Person>('people', { where: [], orderBy: [{ field: 'joinedAt', direction: 'desc' }, { field: 'id', direction: 'desc' }], offset: 1, limit: 2 });
      expect(ids(offset)).toEqual(['c', 'a']);
    });

    it('serves the rows find returns as served JSON, with their keyset values, in the same order and pages', async () => {
      await store.applyBatch([], put(person('a', 1), person('b', 5), person('c', 5), person('d', 7, { team: 'blue' })), 1n);
      const query = {
        where: [{ field: 'team', op: 'eq', value: 'red' }] as const,
        orderBy: [{ field: 'joinedAt', direction: 'desc' }, { field: 'id', direction: 'desc' }] as const,
        limit: 2,
      };
      const first = await store.findServed('people', query, servePerson);
      expect(first).toEqual([
        { json: servePerson(person('c', 5)), keys: [time(5), 'c'] },
        { json: servePerson(person('b', 5)), keys: [time(5), 'b'] },
      ]);
      const second = await store.findServed('people', { ...query, after: first.at(-1)?.keys }, servePerson);
      expect(second.map(({ json }) => json)).toEqual([servePerson(person('a', 1))]);
      expect(await store.findServed('people', { ...query, where: [{ field: 'team', op: 'eq', value: 'x\u0000' }] }, servePerson)).toEqual([]);
    });

    it('serves every write to the very next page read, however often the page was read before', async () => {
      const query = {
        where: [{ field: 'team', op: 'eq', value: 'red' }] as const,
        orderBy: [{ field: 'joinedAt', direction: 'desc' }, { field: 'id', direction: 'desc' }] as const,
        limit: 3,
      };
      const page = async () => (await store.findServed('people', query, servePerson)).map(({ json }) => json);
      await store.applyBatch([], put(person('a', 1), person('b', 2)), 1n);
      for (let read = 0; read < 3; read += 1) expect(await page()).toEqual([servePerson(person('b', 2)), servePerson(person('a', 1))]);
      await store.applyBatch([], put(person('c', 3)), 2n);
      expect(await page()).toEqual([servePerson(person('c', 3)), servePerson(person('b', 2)), servePerson(person('a', 1))]);
      // A change of a served field, a move out of the filter, a deletion: each seen by the next read.
      await store.applyBatch([], put(person('c', 4)), 3n);
      expect(await page()).toEqual([servePerson(person('c', 4)), servePerson(person('b', 2)), servePerson(person('a', 1))]);
      await store.applyBatch([], put(person('b', 2, { team: 'blue' })), 4n);
      expect(await page()).toEqual([servePerson(person('c', 4)), servePerson(person('a', 1))]);
      await store.applyBatch([], [{ collection: 'people', id: 'a', doc: null }], 5n);
      expect(await page()).toEqual([servePerson(person('c', 4))]);
      // A read started before a write and answered after it is never kept for the next read.
      const racing = page();
      const writing = store.applyBatch([], put(person('d', 5)), 6n);
      await Promise.all([racing, writing]);
      expect(await page()).toEqual([servePerson(person('d', 5)), servePerson(person('c', 4))]);
      // Rebuilt tables swapped in: the next read serves them.
      const rebuilt = { name: rebuildCollectionName('people'), indexes: people.indexes, served: servePerson };
      await store.prepare([rebuilt], { fresh: true });
      await store.applyBatch([], [{ collection: rebuilt.name, id: 'r', doc: person('r', 9) }], 7n);
      await store.promoteRebuild({ collections: [people], changes: [], checkpoint: 7n });
      expect(await page()).toEqual([servePerson(person('r', 9))]);
      // Pages of different filters and limits are different pages.
      expect(await store.findServed('people', { ...query, where: [{ field: 'team', op: 'eq', value: 'blue' }] }, servePerson)).toEqual([]);
    });

    it('tells a live watch of every change this store makes to an announcing collection', async () => {
      let changes = 0;
      const watch = store.watchChanges('people', () => {
        changes += 1;
      });
      try {
        // A feed may need a moment to start listening; a store without one must never claim to be live.
        for (let waited = 0; changeFeed && !watch.live && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(watch.live).toBe(changeFeed);
        if (!changeFeed) return;
        const before = changes;
        await store.applyBatch([], put(person('w', 1)), 1n);
        expect(changes).toBeGreaterThan(before);
        const afterWrite = changes;
        await store.applyBatch([], [{ collection: 'people', id: 'w', doc: null }], 2n);
        expect(changes).toBeGreaterThan(afterWrite);
      } finally {
        watch.close();
      }
    });

    it("loads a rebuild's first writes and rewrites, whatever characters its ids, documents and served JSON hold", async () => {
      const rebuilt = { name: rebuildCollectionName('people'), indexes: [], served: servePerson };
      await store.prepare([rebuilt], { fresh: true });
      // As a rebuild writes: loadRebuilt where the store has it, else a batch that moves no checkpoint.
      const load = (changes: DocumentChange[], position: bigint) =>
        store.loadRebuilt?.(changes, position) ?? store.applyBatch([], changes, position);
      const odd = 'tab\there, new\nline, return\r, back\\slash \\N "quoted" \u00e9t\u00e9 \u{1F600} \u0002';
      const strange = person(`id ${odd}`, 1, { team: odd, tags: [odd] });
      await load([
        { collection: rebuilt.name, id: strange.id, doc: strange, firstWrite: true },
        { collection: rebuilt.name, id: 'plain', doc: person('plain', 2), firstWrite: true },
        { collection: rebuilt.name, id: 'never', doc: null, firstWrite: true },
      ], 5n);
      await load([
        { collection: rebuilt.name, id: 'plain', doc: person('plain', 3, { team: odd }), firstWrite: false },
        { collection: rebuilt.name, id: 'later', doc: person('later', 4), firstWrite: true },
      ], 6n);
      await store.promoteRebuild({ collections: [{ ...people, indexes: [] }], changes: [], checkpoint: 6n });
      expect(await store.get('people', strange.id)).toEqual(strange);
      expect(await store.get('people', 'plain')).toEqual(person('plain', 3, { team: odd }));
      expect(await store.get('people', 'never')).toBeNull();
      const written = await store.getForUpdate('people', [strange.id, 'plain', 'later']);
      expect([...written].map(([id, { position }]) => [id, position]).sort()).toEqual([[strange.id, 5n], ['later', 6n], ['plain', 6n]].sort());
      const served = await store.findServed('people', { where: [], orderBy: [{ field: 'joinedAt', direction: 'asc' }], limit: 10 }, servePerson);
      expect(served.map((row) => row.json)).toEqual([servePerson(strange), servePerson(person('plain', 3)), servePerson(person('later', 4))]);
      await store.prepare([people], { fresh: true });
    });

    it('swaps rebuilt collections in and sets their checkpoints, rebuild after rebuild', async () => {
      await store.applyBatch(['people'], put(person('old', 1)), 4n);
      for (const round of [1, 2]) {
        const rebuilt = { name: rebuildCollectionName('people'), indexes: people.indexes };
        await store.prepare([rebuilt], { fresh: true });
        await store.applyBatch([], [{ collection: rebuilt.name, id: `built-${round}`, doc: person(`built-${round}`, 2) }], 1n);
        await store.promoteRebuild({ collections: [people], changes: [{ collection: rebuilt.name, id: 'tail', doc: person('tail', 3) }], checkpoint: 3n });
        expect(ids(await store.find<Person>('people', { where: [], orderBy: [{ field: 'id', direction: 'asc' }], limit: 10 }))).toEqual([`built-${round}`, 'tail']);
        expect((await store.checkpoints(['people'])).get('people')).toBe(3n);
        expect(await store.count('people', [{ field: 'team', op: 'eq', value: 'red' }])).toBe(2);
      }
    });
  });
};
