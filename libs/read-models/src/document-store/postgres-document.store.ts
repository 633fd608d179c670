import type { Pool, PoolClient } from 'pg';
import { type Deployment, quoteIdent } from '#platform';
import { sqlLiteral } from '#event-store';
import {
  assertCheckpointsUnchanged, rebuildCollectionName,
  type ApplyBatchOptions, type DocumentChange, type DocumentQuery, type DocumentStore, type PromoteRebuildInput, type RenderServed,
  type ChangeWatch, type ServedRow, type WrittenDocument,
} from '../shared/document-store.port.js';
import type { CollectionDefinition } from '../shared/projection.js';
import { changeFeedFor } from './postgres-change-feed.js';
import { postgresReads } from './postgres-reads.js';
import { copyNewRows, writeRows } from './postgres-rows.js';
import { ServedPageCache } from './served-page-cache.js';
import {
  announceSql, changeTopic, readModelsLockKey, collectionDdl, indexDdl, indexName, lz4Sql, primaryKeyName, selectSql, servedColumns, tableName,
} from './postgres-sql.js';

export interface PostgresDocumentStoreOptions {
  pool: Pool;
  schema: string;
  /**
   * `single-process` (an embedded PGlite: one process, one connection): every change is made, and
   * announced, in this process. Otherwise other processes write too: the store LISTENs for their
   * changes (`watchChanges`).
   */
  deployment: Deployment;
  /**
   * Keep served pages (`findServed`) in the process until their collection changes. Default: on
   * exactly in a single-process deployment, where every change is made, and announced, in this
   * process; with other writing processes a cache could answer a read after their commit before
   * their notification arrives, so it is off.
   */
  cacheServedPages?: boolean;
}

const REBUILD_SUFFIX = rebuildCollectionName('');
const PARALLEL_INDEX_BUILDS = 2;
const INDEX_BUILD_MEMORY = '128MB';
/** Connections a rebuild's loads use at once: the server writes two tables on two cores. */
const LOAD_CONNECTIONS = 2;

/** A rebuild's changes of one collection: documents no row holds yet, and the others (null deletes). */
interface RebuiltRows {
  added: Map<string, object>;
  replaced: Map<string, object | null>;
}

/** Runs at most `size` tasks at once, the others in call order. */
class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    }
  }
}

/**
 * Read models in PostgreSQL: one `rm_<name> (id, doc jsonb, json text, position)` table per read
 * model (json: the API's JSON of the row where the collection declares `served`; position: the
 * checkpoint of the batch that last wrote the row) and one checkpoint table. Each method uses one
 * connection at a time, so it also runs on an embedded PGlite reached through a pool of a single connection.
 */
export const createPostgresDocumentStore = ({ pool, schema, deployment, cacheServedPages }: PostgresDocumentStoreOptions): DocumentStore => {
  const qualify = (table: string): string => `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const table = (collection: string): string => qualify(tableName(collection));
  const reads = postgresReads(pool, table);
  const checkpoints = qualify('projection_checkpoints');
  // Every batch, every switch-over and every `prepare` of this schema takes this lock, so a rebuild
  // never swaps tables under a half-written batch and two processes never interleave their DDL.
  const lockKey = readModelsLockKey(schema);
  // Whether the server was built with lz4 does not change while it runs: asked once.
  let lz4: Promise<boolean> | undefined;
  const serverHasLz4 = (): Promise<boolean> => {
    if (lz4 === undefined) {
      lz4 = pool.query<{ lz4: boolean }>(lz4Sql).then((result) => result.rows[0]?.lz4 === true);
      // A failed question is asked again next time.
      lz4.catch(() => {
        lz4 = undefined;
      });
    }
    return lz4;
  };
  // What each collection serves and whether it announces changes, learnt from `prepare`.
  const servedBy = new Map<string, (doc: object) => string>();
  const listens = deployment === 'multi-process';
  // A server takes COPY; the single-process database is PGlite, whose socket ends the connection at COPY FROM STDIN.
  const copies = deployment === 'multi-process';
  const feed = changeFeedFor(pool, listens);
  // Every write is announced in this process, whatever the collection (watchers pick their topics);
  // other processes hear of the collections declared with `announceChanges` (their triggers' NOTIFY).
  const announce = (collections: Iterable<string>): void => feed.announce(Array.from(collections, (collection) => changeTopic(schema, collection)));
  const pages = (cacheServedPages ?? deployment === 'single-process') ? new ServedPageCache() : null;
  const pageWatches = new Map<string, ChangeWatch>();
  const watchPages = (collection: string, cache: ServedPageCache): void => {
    if (pageWatches.has(collection)) return;
    pageWatches.set(collection, feed.watch(changeTopic(schema, collection), () => cache.invalidate(collection)));
  };

  const lockedBegin = `BEGIN; SELECT pg_advisory_xact_lock(hashtext(${sqlLiteral(lockKey)}))`;
  /**
   * `lock: false` for the rebuild's twin tables, which nobody else touches before the switch-over
   * (which locks), and whose commits need not wait for the disk (`synchronousCommit: false`): the
   * switch-over's commit is synchronous and so makes everything written before it durable. The
   * transaction begins, locks and sets its commit mode in one round trip.
   */
  const inTransaction = async <T>(work: (client: PoolClient) => Promise<T>, { lock = true, synchronousCommit = true } = {}): Promise<T> => {
    const client = await pool.connect();
    try {
      const begin = lock ? lockedBegin : 'BEGIN';
      await client.query(synchronousCommit ? begin : `${begin}; SET LOCAL synchronous_commit = off`);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  /** A whole transaction (BEGIN … COMMIT) as one simple query, on a connection of its own; rolled back if it fails. */
  const transactionInOneQuery = async (text: string): Promise<void> => {
    const client = await pool.connect();
    try {
      await client.query(text);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  /**
   * CREATE INDEX statements of loaded tables, two at a time on their own connections (the server
   * builds them on two cores while one connection would use one), each with room to sort in memory,
   * in one round trip. Their commits need not wait for the disk: the switch-over's does, for them too.
   */
  const buildIndexes = async (statements: readonly string[]): Promise<void> => {
    const queue = [...statements];
    const builder = async (): Promise<void> => {
      for (let statement = queue.shift(); statement !== undefined; statement = queue.shift()) {
        await transactionInOneQuery(
          `BEGIN; SET LOCAL maintenance_work_mem = '${INDEX_BUILD_MEMORY}'; SET LOCAL synchronous_commit = off; ${statement}; COMMIT`,
        ).catch((error: unknown) => {
          // The other builder stops after its current statement.
          queue.length = 0;
          throw error;
        });
      }
    };
    const builders = Math.min(PARALLEL_INDEX_BUILDS, statements.length, Math.max(1, (pool.options?.max ?? 1) - 1));
    await Promise.all(Array.from({ length: builders }, builder));
  };

  // A rebuild's loads: per collection, the last write queued; at most LOAD_CONNECTIONS at once.
  const loadChains = new Map<string, Promise<unknown>>();
  const loadSlots = new Slots(Math.min(LOAD_CONNECTIONS, Math.max(1, (pool.options?.max ?? 1) - 1)));
  /**
   * A rebuild's rows of one collection: those no row holds yet are added with COPY on the server
   * (PGlite behind its socket ends the connection at COPY FROM STDIN, so it upserts them too), the
   * others upserted.
   */
  const loadRows = (collection: string, { added, replaced }: RebuiltRows, position: bigint): Promise<void> =>
    inTransaction(async (client) => {
      const served = servedBy.get(collection);
      if (copies) await copyNewRows(client, table(collection), added, served, position);
      const upserted = copies ? replaced : new Map([...added, ...replaced]);
      if (upserted.size > 0) await writeRows(client, table(collection), upserted, served, position);
    }, { lock: false, synchronousCommit: false });

  const writeChanges = async (client: PoolClient, changes: readonly DocumentChange[], position: bigint): Promise<void> => {
    // Last change per document wins; one statement may not touch the same row twice.
    const latest = new Map<string, Map<string, object | null>>();
    for (const { collection, id, doc } of changes) {
      const docs = latest.get(collection) ?? new Map<string, object | null>();
      docs.set(id, doc);
      latest.set(collection, docs);
    }
    // Before the commit: on one connection (embedded) nobody can read until it is done, so a cache
    // emptied now is never refilled with the old rows; after the commit too, for everyone else.
    announce(latest.keys());
    for (const [collection, docs] of latest) await writeRows(client, table(collection), docs, servedBy.get(collection), position);
  };

  const readCheckpoints = async (
    runner: Pick<Pool, 'query'> | PoolClient,
    names: readonly string[],
  ): Promise<Map<string, bigint | null>> => {
    const { rows } = await runner.query<{ name: string; position: string }>(
      `SELECT name, position::text AS position FROM ${checkpoints} WHERE name = ANY($1::text[])`,
      [names],
    );
    const found = new Map(rows.map((row) => [row.name, BigInt(row.position)]));
    return new Map(names.map((name) => [name, found.get(name) ?? null]));
  };

  /** Upserts the checkpoints of `names` at `position`; `update` is the position a stored one gets. */
  const writeCheckpoints = async (client: PoolClient, names: readonly string[], position: bigint, update: string): Promise<void> => {
    await client.query(
      `INSERT INTO ${checkpoints} (name, position) SELECT unnest($1::text[]), $2::bigint ON CONFLICT (name) DO UPDATE SET position = ${update}`,
      [names, position.toString()],
    );
  };

  return {
    ...reads,

    async prepare(collections: readonly CollectionDefinition[], options?: { fresh?: boolean }): Promise<void> {
      for (const { name, served } of collections) if (served !== undefined) servedBy.set(name, served);
      const names = collections.map(({ name }) => name);
      // Tables may be dropped or altered: nothing read before holds.
      announce(names);
      // A rebuild's twins, made by its fresh `prepare` and loaded since, only get their indexes,
      // built side by side (nobody else uses them): their tables' DDL again, in a locked and
      // synchronously committed transaction, held up the switch-over for nothing. Every other
      // collection is prepared in one locked transaction.
      const rebuilt = options?.fresh !== true && collections.length > 0 && collections.every(({ name }) => name.endsWith(REBUILD_SUFFIX));
      if (rebuilt) {
        try {
          await buildIndexes(collections.flatMap((collection) => indexDdl(schema, collection)));
          announce(names);
          return;
        } catch (error) {
          // Twins no fresh `prepare` made (42P01: no such table) are made below, as any collection.
          if ((error as { code?: string }).code !== '42P01') throw error;
        }
      }
      const lz4 = await serverHasLz4();
      // The whole transaction in one round trip (a simple query may hold many statements; none
      // takes parameters): a rebuild makes its twins while it evolves, and a round trip whose
      // answer waits for the evolving of a batch held up the first write.
      await transactionInOneQuery([
        lockedBegin,
        `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`,
        `CREATE TABLE IF NOT EXISTS ${checkpoints} (name text PRIMARY KEY, position bigint NOT NULL)`,
        ...collections.flatMap((collection) => [
          ...(options?.fresh === true ? [`DROP TABLE IF EXISTS ${table(collection.name)}`] : []),
          ...collectionDdl(schema, collection, { lz4 }),
        ]),
        'COMMIT',
      ].join(';\n'));
      announce(names);
    },

    async applyBatch(projectionNames, changes, checkpoint, options?: ApplyBatchOptions): Promise<void> {
      await inTransaction(async (client) => {
        const expected = options?.expectedCheckpoints;
        if (expected !== undefined) assertCheckpointsUnchanged(expected, await readCheckpoints(client, [...expected.keys()]));
        await writeChanges(client, changes, checkpoint);
        if (projectionNames.length > 0) await writeCheckpoints(client, projectionNames, checkpoint, `GREATEST(${checkpoints}.position, EXCLUDED.position)`);
      });
      announce(changes.map(({ collection }) => collection));
    },

    async getForUpdate(collection: string, ids: readonly string[]): Promise<Map<string, WrittenDocument>> {
      if (ids.length === 0) return new Map();
      const { rows } = await pool.query<{ id: string; doc: object; position: string }>(
        `SELECT id, doc, position::text AS position FROM ${table(collection)} WHERE id = ANY($1::text[])`,
        [ids],
      );
      return new Map(rows.map((row) => [row.id, { doc: row.doc, position: BigInt(row.position) }]));
    },

    async findServed(collection: string, query: DocumentQuery, render: RenderServed): Promise<ServedRow[]> {
      if (pages === null) return reads.findServed(collection, query, render);
      const { text, values } = selectSql(table(collection), query, servedColumns(query));
      const key = `${text}\u0000${JSON.stringify(values)}`;
      watchPages(collection, pages);
      const cached = pages.get(collection, key);
      // Frozen: a caller changing a row would otherwise change the next answer.
      if (cached !== undefined) return cached as ServedRow[];
      const generation = pages.generation(collection);
      const served = await reads.findServed(collection, query, render);
      pages.set(collection, key, served, generation);
      return served;
    },

    watchChanges: (collection, onChange) => feed.watch(changeTopic(schema, collection), onChange),

    announce,

    checkpoints: (projectionNames) => readCheckpoints(pool, projectionNames),

    async promoteRebuild({ collections, changes, checkpoint }: PromoteRebuildInput): Promise<void> {
      const names = collections.map(({ name }) => name);
      await inTransaction(async (client) => {
        await writeChanges(client, changes, checkpoint ?? 0n);
        // Every swap in one round trip (a simple query may hold many statements; none takes parameters).
        const swaps = collections.flatMap((collection) => {
          const live = tableName(collection.name);
          const rebuilt = tableName(rebuildCollectionName(collection.name));
          return [
            `DROP TABLE IF EXISTS ${qualify(live)}`,
            `ALTER TABLE ${qualify(rebuilt)} RENAME TO ${quoteIdent(live)}`,
            `ALTER INDEX ${qualify(primaryKeyName(rebuilt))} RENAME TO ${quoteIdent(primaryKeyName(live))}`,
            ...collection.indexes.map((index) => `ALTER INDEX ${qualify(indexName(rebuilt, index))} RENAME TO ${quoteIdent(indexName(live, index))}`),
          ];
        });
        if (swaps.length > 0) await client.query(swaps.join(';\n'));
        // Before the commit too, as for a batch: on one connection nobody reads in between.
        announce(names);
        // Renaming a table fires no trigger: the swap is announced here, delivered at commit.
        for (const { name, announceChanges } of collections) if (announceChanges === true) await client.query(announceSql, [changeTopic(schema, name)]);
        if (checkpoint === null) {
          await client.query(`DELETE FROM ${checkpoints} WHERE name = ANY($1::text[])`, [names]);
          return;
        }
        // Set, not raised: the live runner finds its checkpoint moved, drops its batch and resumes from here.
        await writeCheckpoints(client, names, checkpoint, 'EXCLUDED.position');
      });
      announce(names);
    },

    async loadRebuilt(changes: readonly DocumentChange[], position: bigint): Promise<void> {
      const latest = new Map<string, RebuiltRows>();
      for (const { collection, id, doc, firstWrite } of changes) {
        if (!collection.endsWith(REBUILD_SUFFIX)) throw new Error(`loadRebuilt writes rebuilt collections only, not ${collection}`);
        let rows = latest.get(collection);
        if (rows === undefined) {
          rows = { added: new Map(), replaced: new Map() };
          latest.set(collection, rows);
        }
        // The last change of a document wins; it is added only if none of its changes here found a row.
        if (firstWrite === true && !rows.replaced.has(id)) {
          // Made and dropped again before it was ever written: no row to write.
          if (doc === null) rows.added.delete(id);
          else rows.added.set(id, doc);
        } else {
          rows.added.delete(id);
          rows.replaced.set(id, doc);
        }
      }
      // Biggest first: the small collections' loads fill in around them instead of holding them up.
      const bySize = [...latest].sort(([, a], [, b]) => b.added.size + b.replaced.size - (a.added.size + a.replaced.size));
      await Promise.all(bySize.map(([collection, rows]) => {
        // One collection's writes in call order: a document written twice ends as written last.
        const previous = loadChains.get(collection) ?? Promise.resolve();
        const next = previous.then(() => loadSlots.run(() => loadRows(collection, rows, position)));
        const settled = next.catch(() => undefined);
        loadChains.set(collection, settled);
        return next;
      }));
    },

    // The pool belongs to the caller, who may share it with other stores; only the LISTEN connection is returned.
    close: async () => {
      for (const watch of pageWatches.values()) watch.close();
      pageWatches.clear();
      pages?.clear();
      if (listens) await feed.stop();
    },
  };
};
