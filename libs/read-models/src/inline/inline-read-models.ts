import { type InlineProjector, type InlineResults, type InlineStatement, type InlineStep, type PendingEvent, type RecordedEvent, preparedStatement, sqlLiteral } from '#event-store';
import { rowsOf } from '../document-store/postgres-rows.js';
import { type Deployment, quoteIdent } from '#platform';
import { readModelsLockKey, tableName } from '../document-store/postgres-sql.js';
import { handles, type AnyProjection } from '../shared/projection.js';
import { asDomainEvent, type RecordedDomainEvent } from '../shared/recorded-domain-event.js';

export interface InlineReadModelsOptions {
  /** The schema of the read-model tables (createPostgresDocumentStore's). */
  schema: string;
  projections: readonly AnyProjection[];
  /** Tells this process's watchers (the API-key cache) which collections a transaction changes. */
  announce: (collections: readonly string[]) => void;
  /**
   * `single-process`: every transaction on these tables goes through one connection (the embedded
   * store), so the lock the runner's flushes share is left out: it could never wait for anyone.
   */
  deployment: Deployment;
}

export const INLINE_READ_MODELS = 'read-models';

interface Fetched {
  collection: string;
  id: string;
  doc: object | null;
  position: bigint | null;
}

const keyOf = (collection: string, id: string): string => `${collection}\u0000${id}`;

/** What documentIds needs of an event about to be appended: its type and data. */
const pendingAsRecorded = (event: PendingEvent): RecordedEvent => ({
  id: event.id, streamId: '', revision: 0, position: 0n, type: event.type, data: event.data,
  metadata: { correlationId: '', causationId: null, actor: '', requestId: '', time: '' }, recordedAt: '',
});

/**
 * The read models updated inside the append transaction (PostgreSQL, PGlite), so a write is
 * readable the moment it commits and its answer waits for nobody. The same pure projections the
 * runner applies, the same rows (document, served JSON, position) and the same checkpoints.
 *
 * It applies to each read model exactly at the head of the log before this transaction (its
 * checkpoint = the head, read under the append lock): nothing between is missing and the documents
 * it reads are current. A read model behind (a follower is behind: a rebuild switching over, an
 * append that ran without it, or one new in this release that the runner is building from the
 * log) is left to the runner, which catches it up; the next transaction finding it at the head
 * applies it again. With none at the head it does nothing. So a read model being built from the
 * log on a first start never holds up the writes the others show at once.
 * It takes the read models' lock after the append lock, so a runner's batch or a rebuild's
 * switch-over never interleaves with it.
 */
export const createInlineReadModels = ({ schema, projections, announce, deployment }: InlineReadModelsOptions): InlineProjector => {
  const qualify = (table: string): string => `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const table = (collection: string): string => qualify(tableName(collection));
  const checkpoints = qualify('projection_checkpoints');
  const names = projections.map(({ name }) => name);
  const served = new Map(projections.flatMap((projection) => (projection.served === undefined ? [] : [[projection.name, projection.served.bind(projection)] as const])));

  // The statements that are the same at every append, prepared once per connection (PGlite spent
  // 0.25 ms planning the checkpoints' read and the head's, 0.14 ms their write, 0.05 and 0.08 ms a
  // collection's read of the documents an append touches and its write of one of them).
  const namesArray = `ARRAY[${names.map((name) => sqlLiteral(name)).join(', ')}]::text[]`;
  const readCheckpoints = preparedStatement('rm_inline_read_checkpoints', `SELECT name, position::text AS position FROM ${checkpoints} WHERE name = ANY(${namesArray})`);
  const writeCheckpoints = preparedStatement('rm_inline_write_checkpoints', `INSERT INTO ${checkpoints} (name, position) SELECT name, $1 FROM unnest(${namesArray}) AS name
    ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position`, ['bigint']);
  const readDocuments = new Map(names.map((name) => [name, preparedStatement('rm_inline_read',
    `SELECT ${sqlLiteral(name)} AS collection, id, doc, position::text AS position FROM ${table(name)} WHERE id = ANY($1::text[])`, ['text[]'])]));
  // The documents' reads are planned without sequential scans: they look up a few ids by primary
  // key, and a plan lasts until the table's statistics change. The plan cached while a table was a
  // few pages read the whole table at every append once it had grown (385 pages at 20k invitations,
  // 2.6 ms with the append lock held, before autovacuum analyzed it again). Planned at every append
  // instead (a literal statement), one invitation at a time on PGlite took 0.35-0.75 ms longer.
  // Only these reads: the setting goes back to the connection's own after them.
  const seqscanOff = 'SET LOCAL enable_seqscan = off';
  const seqscanBack = 'SET LOCAL enable_seqscan = DEFAULT';
  const writeDocument = new Map(names.map((name) => [name, preparedStatement('rm_inline_write', `INSERT INTO ${table(name)} (id, doc, json, position) VALUES ($1, $2::jsonb, $3, $4)
    ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, json = EXCLUDED.json, position = EXCLUDED.position`, ['text', 'text', 'text', 'bigint'])]));

  const touched = (event: RecordedDomainEvent): { projection: AnyProjection; ids: Set<string> }[] =>
    projections.filter((projection) => handles(projection, event.type)).map((projection) => ({ projection, ids: new Set(projection.documentIds(event)) }));

  /** The rows writeRows would write (same documents, served JSON, position), as literal SQL. */
  const writeSql = (collection: string, docs: ReadonlyMap<string, object | null>, position: bigint): string[] => {
    const { ids, stored, json, deletes } = rowsOf(docs, served.get(collection));
    const rows = ids.map((id, index) => `(${sqlLiteral(id)}, ${sqlLiteral(stored[index] ?? '')}::jsonb, ${json[index] === undefined ? 'NULL' : sqlLiteral(json[index])}, ${position})`);
    const statements: string[] = [];
    const one = writeDocument.get(collection);
    if (ids.length === 1 && one !== undefined) {
      statements.push(`EXECUTE ${one.name}(${sqlLiteral(ids[0] ?? '')}, ${sqlLiteral(stored[0] ?? '')}, ${json[0] === undefined ? 'NULL' : sqlLiteral(json[0])}, ${position})`);
    } else if (rows.length > 0) {
      statements.push(`INSERT INTO ${table(collection)} (id, doc, json, position) VALUES ${rows.join(', ')}
        ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, json = EXCLUDED.json, position = EXCLUDED.position`);
    }
    if (deletes.length > 0) statements.push(`DELETE FROM ${table(collection)} WHERE id IN (${deletes.map(sqlLiteral).join(', ')})`);
    return statements;
  };

  return {
    name: INLINE_READ_MODELS,
    setup: [readCheckpoints, writeCheckpoints, ...readDocuments.values(), ...writeDocument.values()].map((statement) => statement.prepare),
    prepare(events): InlineStep {
      const wanted = new Map<string, Set<string>>();
      for (const pending of events) {
        const event = asDomainEvent(pendingAsRecorded(pending));
        if (event === null) continue;
        for (const { projection, ids } of touched(event)) {
          const set = wanted.get(projection.name) ?? new Set<string>();
          for (const id of ids) set.add(id);
          wanted.set(projection.name, set);
        }
      }
      const reads = [...wanted].filter(([, ids]) => ids.size > 0);
      const statements: InlineStatement[] = [
        // Where transactions may overlap, the read models' own lock (every runner batch and rebuild switch-over takes it).
        ...(deployment === 'single-process' ? [] : [{ sql: `SELECT pg_advisory_xact_lock(hashtext(${sqlLiteral(readModelsLockKey(schema))}))` }]),
        { sql: `EXECUTE ${readCheckpoints.name}`, name: 'checkpoints' },
      ];
      // One statement per collection read, between the two settings.
      if (reads.length > 0) {
        statements.push({ sql: seqscanOff });
        for (const [collection, ids] of reads) {
          statements.push({ sql: `EXECUTE ${readDocuments.get(collection)?.name ?? ''}(ARRAY[${[...ids].map(sqlLiteral).join(', ')}]::text[])`, name: 'documents' });
        }
        statements.push({ sql: seqscanBack });
      }
      return {
        statements,
        finish: (rows: InlineResults, head: bigint | null, recorded: readonly RecordedEvent[]) => {
          const stored = new Map(rows('checkpoints').map((row) => [String(row.name), BigInt(String(row.position))]));
          const current = new Set(names.filter((name) => (stored.get(name) ?? null) === head));
          if (current.size === 0) return null;
          const docs = new Map<string, Fetched>();
          for (const [collection, ids] of reads) for (const id of ids) docs.set(keyOf(collection, id), { collection, id, doc: null, position: null });
          for (const row of rows('documents')) {
            const collection = String(row.collection);
            const id = String(row.id);
            docs.set(keyOf(collection, id), { collection, id, doc: row.doc as object, position: BigInt(String(row.position)) });
          }
          const changed = new Map<string, Map<string, object | null>>();
          for (const recordedEvent of recorded) {
            const event = asDomainEvent(recordedEvent);
            if (event === null) continue;
            for (const { projection, ids } of touched(event)) {
              if (!current.has(projection.name)) continue;
              for (const id of ids) {
                const fetched = docs.get(keyOf(projection.name, id));
                // A document the reads did not cover (its id depends on more than type and data): leave it all to the runner.
                if (fetched === undefined) return null;
                if (fetched.position !== null && event.position <= fetched.position) continue;
                const next = projection.evolve(fetched.doc, event, id);
                if (next === fetched.doc) continue;
                fetched.doc = next;
                const collection = changed.get(projection.name) ?? new Map<string, object | null>();
                collection.set(id, next);
                changed.set(projection.name, collection);
              }
            }
          }
          const last = recorded.at(-1)?.position;
          if (last === undefined) return null;
          const statements = [...changed].flatMap(([collection, changedDocs]) => writeSql(collection, changedDocs, last));
          statements.push(current.size === names.length
            ? `EXECUTE ${writeCheckpoints.name}(${last})`
            : `INSERT INTO ${checkpoints} (name, position) SELECT name, ${last} FROM unnest(ARRAY[${[...current].map(sqlLiteral).join(', ')}]::text[]) AS name
              ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position`);
          // Before the commit as well as after: on one connection (embedded) nobody reads in between.
          const collections = [...changed.keys()];
          if (collections.length > 0) announce(collections);
          return { statements, onCommitted: collections.length > 0 ? () => announce(collections) : undefined };
        },
      };
    },
  };
};
