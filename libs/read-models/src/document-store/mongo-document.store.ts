import { Long, MongoClient, type AnyBulkWriteOperation, type ClientSession, type Db } from 'mongodb';
import {
  assertCheckpointsUnchanged, rebuildCollectionName,
  type DocumentChange, type DocumentQuery, type DocumentStore, type ServedRow, type WrittenDocument,
} from '../shared/document-store.port.js';
import { mongoFilter, mongoIndex, mongoSort, type StoredDocument } from './mongo-filters.js';

export interface MongoDocumentStoreOptions {
  /** `mongodb://…`; the database is the one named in the URL unless `database` is given. */
  url: string;
  database?: string;
}

interface CheckpointDocument {
  _id: string;
  position: Long | bigint | number;
}

const collectionName = (collection: string): string => `rm_${collection}`;
const CHECKPOINTS = 'projection_checkpoints';

const toBigInt = (position: Long | bigint | number): bigint =>
  typeof position === 'bigint' ? position : typeof position === 'number' ? BigInt(position) : BigInt(position.toString());

const withoutKey = <Doc extends object>(stored: StoredDocument): Doc => {
  const { _id, _position, ...doc } = stored;
  return doc as Doc;
};

/**
 * Read models in MongoDB: one `rm_<name>` collection per read model, documents stored flat with
 * `_id` = document id and `_position` = the checkpoint of the batch that wrote them. A batch is one
 * transaction when the server runs as a replica set or behind mongos. A standalone server has no
 * transactions: the batch is written as ordered bulk writes and the checkpoint last. A crash in
 * between leaves documents ahead of the checkpoint, and the runner replays the events above the
 * checkpoint; that is safe because an event is applied to a document only when it is above the
 * document's own `_position` too, so even a counter is not incremented twice.
 */
export const createMongoDocumentStore = ({ url, database }: MongoDocumentStoreOptions): DocumentStore => {
  const client = new MongoClient(url);
  const db: Db = client.db(database);
  let transactions: Promise<boolean> | null = null;
  const supportsTransactions = (): Promise<boolean> => {
    transactions ??= db.admin().command({ hello: 1 }).then((hello) => typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid');
    return transactions;
  };
  const checkpoints = db.collection<CheckpointDocument>(CHECKPOINTS);
  const rm = (collection: string) => db.collection<StoredDocument>(collectionName(collection));
  const byIds = async (collection: string, ids: readonly string[]): Promise<StoredDocument[]> =>
    ids.length === 0 ? [] : rm(collection).find({ _id: { $in: [...ids] } }).toArray();
  const findStored = (collection: string, query: DocumentQuery): Promise<StoredDocument[]> =>
    rm(collection).find(mongoFilter(query.where, query.orderBy, query.after)).sort(mongoSort(query)).skip(query.offset ?? 0).limit(query.limit).toArray();
  const exists = async (name: string): Promise<boolean> => (await db.listCollections({ name }, { nameOnly: true }).toArray()).length > 0;

  const readCheckpoints = async (names: readonly string[], session?: ClientSession): Promise<Map<string, bigint | null>> => {
    const found = await checkpoints.find({ _id: { $in: [...names] } }, { session }).toArray();
    const positions = new Map(found.map((row) => [row._id, toBigInt(row.position)]));
    return new Map(names.map((name) => [name, positions.get(name) ?? null]));
  };

  const writeChanges = async (changes: readonly DocumentChange[], position: bigint, session?: ClientSession): Promise<void> => {
    const byCollection = new Map<string, AnyBulkWriteOperation<StoredDocument>[]>();
    for (const { collection, id, doc } of changes) {
      const operations = byCollection.get(collection) ?? [];
      operations.push(doc === null
        ? { deleteOne: { filter: { _id: id } } }
        : { replaceOne: { filter: { _id: id }, replacement: { ...doc, _id: id, _position: Long.fromBigInt(position) }, upsert: true } });
      byCollection.set(collection, operations);
    }
    for (const [collection, operations] of byCollection) {
      await rm(collection).bulkWrite(operations, { ordered: true, session });
    }
  };

  const inTransactionIfPossible = async (work: (session?: ClientSession) => Promise<void>): Promise<void> => {
    if (!(await supportsTransactions())) return work();
    const session = client.startSession();
    try {
      await session.withTransaction(() => work(session));
    } finally {
      await session.endSession();
    }
  };

  return {
    async prepare(collections, options): Promise<void> {
      for (const collection of collections) {
        const name = collectionName(collection.name);
        if (options?.fresh === true && (await exists(name))) await db.collection(name).drop();
        if (collection.indexes.length > 0) await db.collection(name).createIndexes(collection.indexes.map(mongoIndex));
      }
    },

    async applyBatch(projectionNames, changes, checkpoint, options): Promise<void> {
      await inTransactionIfPossible(async (session) => {
        const expected = options?.expectedCheckpoints;
        if (expected !== undefined) assertCheckpointsUnchanged(expected, await readCheckpoints([...expected.keys()], session));
        await writeChanges(changes, checkpoint, session);
        if (projectionNames.length === 0) return;
        // $max keeps a checkpoint from moving back, like GREATEST in PostgreSQL.
        await checkpoints.bulkWrite(
          projectionNames.map((name) => ({ updateOne: { filter: { _id: name }, update: { $max: { position: Long.fromBigInt(checkpoint) } }, upsert: true } })),
          { session },
        );
      });
    },

    async get<Doc extends object>(collection: string, id: string): Promise<Doc | null> {
      const found = await rm(collection).findOne({ _id: id });
      return found === null ? null : withoutKey<Doc>(found);
    },

    async getMany<Doc extends object>(collection: string, ids: readonly string[]): Promise<Map<string, Doc>> {
      return new Map((await byIds(collection, ids)).map((doc) => [doc._id, withoutKey<Doc>(doc)]));
    },

    async getForUpdate(collection, ids): Promise<Map<string, WrittenDocument>> {
      const stored = await byIds(collection, ids);
      return new Map(stored.map((row) => [row._id, { doc: withoutKey<object>(row), position: toBigInt(row._position ?? 0) }]));
    },

    async find<Doc extends object>(collection: string, query: DocumentQuery): Promise<Doc[]> {
      return (await findStored(collection, query)).map((doc) => withoutKey<Doc>(doc));
    },

    /**
     * MongoDB keeps documents only: each row is rendered here. The orderBy values are read off the
     * document as the text PostgreSQL would give (`id` is the key).
     */
    async findServed(collection, query, render): Promise<ServedRow[]> {
      return (await findStored(collection, query)).map((stored) => {
        const doc = withoutKey<Record<string, unknown>>(stored);
        const keys = query.orderBy.map(({ field }) => {
          const value = field === 'id' ? stored._id : doc[field];
          return value === null || value === undefined ? '' : String(value);
        });
        return { json: render(doc), keys };
      });
    },

    // No change feed here (change streams need a replica set): a watch is never live, so nothing is cached.
    watchChanges: () => ({ live: false, close: () => undefined }),

    count: (collection, where) => rm(collection).countDocuments(mongoFilter(where)),

    checkpoints: (projectionNames) => readCheckpoints(projectionNames),

    /**
     * MongoDB renames collections one at a time: readers may briefly see some read models rebuilt
     * and others not. A live runner's next batch is refused (its checkpoint moved) and it resumes
     * from the rebuilt position. Without transactions a batch racing the switch can still land; rerun the rebuild then.
     */
    async promoteRebuild({ collections, changes, checkpoint }): Promise<void> {
      await writeChanges(changes, checkpoint ?? 0n);
      for (const collection of collections) {
        const rebuilt = collectionName(rebuildCollectionName(collection.name));
        // An empty rebuilt read model may never have been created by a write.
        if (!(await exists(rebuilt))) await db.createCollection(rebuilt);
        await db.renameCollection(rebuilt, collectionName(collection.name), { dropTarget: true });
      }
      const names = collections.map(({ name }) => name);
      if (checkpoint === null) {
        await checkpoints.deleteMany({ _id: { $in: names } });
        return;
      }
      await checkpoints.bulkWrite(names.map((name) => ({
        updateOne: { filter: { _id: name }, update: { $set: { position: Long.fromBigInt(checkpoint) } }, upsert: true },
      })));
    },

    close: () => client.close(),
  };
};
