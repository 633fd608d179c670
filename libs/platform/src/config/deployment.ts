/**
 * The deployment's shape, decided once at start (loadConfig) and passed to whatever depends on it;
 * nothing infers it again from a pool's size or an adapter's type.
 * - `single-process`: the SQL database (the log's, or the side database of EventStoreDB) is the
 *   embedded PGlite under DATA_DIR. Its DATA_DIR lock admits one process, which is then the only
 *   writer of everything in it (log, person keys, read models, side tables), all through one
 *   connection to PGlite's one session: its transactions never overlap.
 * - `multi-process`: the SQL database is a PostgreSQL server (EVENT_STORE_URL or READ_STORE_URL):
 *   any number of processes read and write, each through a pool of its own.
 */
export type Deployment = 'single-process' | 'multi-process';

export const isPostgresUrl = (url: string | null): boolean => url !== null && /^postgres(ql)?:\/\//.test(url);

export const deploymentOf = (eventStoreUrl: string | null, readStoreUrl: string | null): Deployment =>
  isPostgresUrl(eventStoreUrl) || isPostgresUrl(readStoreUrl) ? 'multi-process' : 'single-process';
