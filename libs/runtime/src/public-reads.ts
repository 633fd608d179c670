import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Logger } from 'pino';
import { noDatabaseOutage } from '#platform';
import { createReplicaDocumentStore, type DocumentStore } from '#read-models';
import { serverPool } from './connections.js';
import { PostgresServer } from './postgres-servers.js';

/** A read on a standby that takes longer than this is given up (the primary serves it): a standby frozen mid-read. */
const REPLICA_QUERY_TIMEOUT_MS = 5000;

/** What the public API's controllers read the read models through (apps/api/src/api.module.ts provides it as DOCUMENTS). */
export interface PublicReads {
  documents: DocumentStore;
  /** With a replica, runs a public GET as one read session: its reads may then be served by a standby; null without one. */
  session: (<T>(work: () => T) => T) | null;
  /** READ_REPLICA_URL's hosts and the standby its locator keeps; null without it. */
  replica: PostgresServer | null;
  /** The pool on that standby; null without it. */
  replicaPool: pg.Pool | null;
  stop(): Promise<void>;
}

/** Without READ_REPLICA_URL (or outside the public API): the read models on the primary, as always. */
export const primaryReads = (documents: DocumentStore): PublicReads => ({
  documents, session: null, replica: null, replicaPool: null, stop: async () => undefined,
});

/**
 * The public API's reads with READ_REPLICA_URL: a pool on a standby, kept there by its own locator (its errors
 * are never the database outage: the primary serves meanwhile), and the store that waits for the standby to
 * replay what the primary had when a GET began (replica-document.store.ts).
 */
export const replicaReads = async (readReplicaUrl: string, logger: Logger, documents: DocumentStore, documentsPool: pg.Pool): Promise<PublicReads> => {
  const replica = new PostgresServer(readReplicaUrl, 'READ_REPLICA_URL', logger, 'replica');
  const locator = replica.locator;
  if (locator === null) throw new Error('READ_REPLICA_URL is read through its locator (loadConfig requires target_session_attrs)');
  // Found before the first GET; none now is not a reason to refuse to start (the primary serves).
  await locator.locate().then(
    (host) => logger.info({ database: replica.address, host, standby: locator.matches }, locator.matches ? 'public reads go to the read replica' : 'no standby answers: public reads go to the primary until one does'),
    (error: unknown) => logger.warn({ database: replica.address, err: error instanceof Error ? error.message : String(error) }, 'no standby answers: public reads go to the primary until one does'),
  );
  const pool = serverPool(replica, 'replica', logger, noDatabaseOutage, { query_timeout: REPLICA_QUERY_TIMEOUT_MS });
  const store = createReplicaDocumentStore({
    primary: documents, primaryPool: documentsPool, replicaPool: pool, schema: 'public', logger,
    standbyKnown: () => locator.matches,
    relocate: () => void locator.locate().catch(() => undefined),
  });
  return {
    documents: store,
    session: (work) => store.session(work),
    replica,
    replicaPool: pool,
    stop: () => pool.end(),
  };
};

/**
 * With a replica, a public GET (or HEAD) runs as one read session: the primary's WAL position it must see is read
 * at its first read through `documents`, never before (API keys are read on the primary). Without one, nothing
 * is added to a request (an interceptor cost every GET an rxjs pipeline, ~30 µs of CPU, measured).
 */
export const readSessionsOn = (instance: FastifyInstance, { session }: PublicReads): void => {
  if (session === null) return;
  instance.addHook('preHandler', (request, _reply, done) => (request.method === 'GET' || request.method === 'HEAD' ? session(done) : done()));
};
