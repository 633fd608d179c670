import type { Mode, WebhookEventName } from '#domain';
import type { Condition, DocumentQuery, DocumentStore } from '../shared/document-store.port.js';
import { findServedPage } from '../shared/page.js';
import { fillAppUrl } from '../shared/served-json.js';
import { listWorkspaces } from '../workspaces/workspaces.queries.js';
import { eventsProjection, servedEnvelopeJson, type EventFeedDocument } from './events.projection.js';

/** Events are listed for 30 days after they happened (domain time), as the delivery log keeps deliveries. */
export const FEED_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The oldest `createdAt` still listed at `now`. Taken to the whole second below (rows at most a
 * second past 30 days may still show), so that a page read again within a second is the same query.
 */
export const feedCutoff = (now: string): string => {
  const cutoff = Date.parse(now) - FEED_RETENTION_MS;
  return new Date(cutoff - (((cutoff % 1000) + 1000) % 1000)).toISOString();
};

export interface ListEventsOptions {
  workspaceId: string;
  mode: Mode;
  /** Only these event names; absent: every one. */
  types?: readonly WebhookEventName[];
  /** Inclusive lower bound on createdAt (the retention cutoff already folded in by the caller). */
  since: string;
  /** Inclusive upper bound on createdAt. */
  until?: string;
  limit: number;
  /** The last row seen: [seq, id]. */
  after?: readonly string[];
}

const render = (doc: object): string => {
  const envelope = (doc as EventFeedDocument).envelope;
  return envelope === null ? 'null' : servedEnvelopeJson(envelope);
};

/** Without `since`: every listed row up to `until` (the prune's query). */
const eventsQuery = (options: Omit<ListEventsOptions, 'since'> & { since?: string }): DocumentQuery => {
  const where: Condition[] = [
    { field: 'workspaceId', op: 'eq', value: options.workspaceId },
    { field: 'mode', op: 'eq', value: options.mode },
    { field: 'seq', op: 'notNull' },
  ];
  if (options.types !== undefined) where.push({ field: 'event', op: 'in', values: options.types });
  if (options.since !== undefined) where.push({ field: 'createdAt', op: 'gte', value: options.since });
  if (options.until !== undefined) where.push({ field: 'createdAt', op: 'lte', value: options.until });
  return { where, orderBy: [{ field: 'seq', direction: 'asc' }, { field: 'id', direction: 'asc' }], after: options.after, limit: options.limit };
};

/** A page of the feed: served JSON rows, the place of the last one ([seq, id]) and whether more rows exist now. */
export interface FeedPage {
  rows: string[];
  last: readonly string[] | null;
  hasMore: boolean;
}

/** One page of the feed in the log's order, as served JSON (links on APP_URL_MARK). */
export const listServedEvents = async (store: DocumentStore, options: ListEventsOptions): Promise<FeedPage> => {
  const page = await findServedPage(store, eventsProjection.name, eventsQuery(options), render);
  return { rows: page.rows, last: page.last, hasMore: page.next !== null };
};

/** One row of the feed by its event id, as served JSON; another workspace's or mode's, older than `since` or unknown: null. */
export const getServedEvent = async (
  store: DocumentStore,
  options: { workspaceId: string; mode: Mode; eventId: string; since: string },
): Promise<string | null> => {
  const [found] = await store.findServed(eventsProjection.name, {
    where: [
      { field: 'eventId', op: 'eq', value: options.eventId },
      { field: 'workspaceId', op: 'eq', value: options.workspaceId },
      { field: 'mode', op: 'eq', value: options.mode },
      { field: 'seq', op: 'notNull' },
      { field: 'createdAt', op: 'gte', value: options.since },
    ],
    orderBy: [{ field: 'eventId', direction: 'asc' }, { field: 'id', direction: 'asc' }],
    limit: 1,
  }, render);
  return found?.json ?? null;
};

/** A row of a window of the feed, as the JSON it is served as (links on APP_URL_MARK). */
export interface FeedRow {
  seq: string;
  json: string;
}

const WINDOW_PAGE = 500;

async function* oneMode(store: DocumentStore, options: Omit<ListEventsOptions, 'limit' | 'after'>): AsyncGenerator<FeedRow> {
  let after: readonly string[] | undefined;
  for (;;) {
    const rows = await store.findServed(eventsProjection.name, eventsQuery({ ...options, limit: WINDOW_PAGE, after }), render);
    for (const row of rows) yield { seq: row.keys[0] ?? '', json: row.json };
    const last = rows.at(-1);
    if (rows.length < WINDOW_PAGE || last === undefined) return;
    after = last.keys;
  }
}

/**
 * Every row of a window of a workspace's feed, both modes, in the log's order, with links on APP_URL
 * (what a webhook recovery delivers again): each mode read along its own index in pages, the two
 * merged by position.
 */
export async function* servedFeedWindow(
  store: DocumentStore,
  options: { workspaceId: string; types: readonly WebhookEventName[]; since: string; until: string },
  appUrl: string,
): AsyncGenerator<FeedRow> {
  if (options.types.length === 0) return;
  const live = oneMode(store, { ...options, mode: 'live' });
  const sandbox = oneMode(store, { ...options, mode: 'sandbox' });
  let a = await live.next();
  let b = await sandbox.next();
  while (a.done !== true || b.done !== true) {
    const takeLive = b.done === true || (a.done !== true && a.value.seq < b.value.seq);
    const row = takeLive ? (a as IteratorYieldResult<FeedRow>).value : b.value;
    yield { seq: row.seq, json: fillAppUrl(row.json, appUrl) };
    if (takeLive) a = await live.next();
    else b = await sandbox.next();
  }
}

const PRUNE_BATCH = 1_000;

/** Every workspace id, a page at a time. */
async function* workspaceIds(store: DocumentStore): AsyncGenerator<string> {
  let after: readonly string[] | undefined;
  for (;;) {
    const page = await listWorkspaces(store, { limit: 500, after });
    for (const workspace of page.items) yield workspace.id;
    if (page.next === null) return;
    after = page.next.map(String);
  }
}

/**
 * Deletes the listed rows of events that happened before `cutoff` (the feed's 30 days, domain
 * time): no query lists them any more, and a first page no longer passes them on its way to the
 * oldest row it shows (a year of history made it 12 times slower than a workspace's first month).
 * Rows still keeping context for a later envelope (`seq` null) stay. A listed row never changes,
 * so deleting it races with nothing: an event about it (a deletion) deletes it again. Rows a
 * rebuild makes again are deleted at the next run. Returns how many went.
 */
export const pruneFeed = async (store: DocumentStore, cutoff: string): Promise<number> => {
  // Strictly before the cutoff: rows at it are still listed (`createdAt >= cutoff`).
  const before = new Date(Date.parse(cutoff) - 1).toISOString();
  let pruned = 0;
  for await (const workspaceId of workspaceIds(store)) {
    for (const mode of ['live', 'sandbox'] as const) {
      for (;;) {
        const query = eventsQuery({ workspaceId, mode, until: before, limit: PRUNE_BATCH });
        const old = await store.find<EventFeedDocument>(eventsProjection.name, query);
        if (old.length === 0) break;
        // No checkpoint moves: these rows are gone by time, not by an event.
        await store.applyBatch([], old.map(({ id }) => ({ collection: eventsProjection.name, id, doc: null })), 0n);
        pruned += old.length;
        if (old.length < PRUNE_BATCH) break;
      }
    }
  }
  return pruned;
};
