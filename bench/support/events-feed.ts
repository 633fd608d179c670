import { CredentialPool } from './load.js';

/** The largest page the API gives. */
const WALK_LIMIT = 100;

interface EventsPage {
  data: unknown[];
  meta: { nextCursor: string; hasMore: boolean };
}

export interface FeedMiddle {
  /** `meta.nextCursor` right after the candidateCreated row in the middle of the feed. */
  cursor: string;
  /** candidateCreated rows the feed lists (candidates seeded more than 30 days ago are not listed). */
  created: number;
  requests: number;
  seconds: number;
}

/** Keys the walk of a feed of `candidates` candidates takes, 100 requests each. */
export const feedWalkKeys = (candidates: number): number => Math.ceil((candidates / WALK_LIMIT + 2) / 100) + 1;

const getPage = async (baseUrl: string, credentials: CredentialPool, limit: number, cursor: string | null): Promise<EventsPage> => {
  const authorization = credentials.next();
  if (authorization === null) throw new Error('walking the events feed used up its API keys');
  const path = `/v1/events?type=candidateCreated&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization } });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} -> ${response.status} ${body.slice(0, 300)}`);
  return JSON.parse(body) as EventsPage;
};

/**
 * A cursor from the middle of the seeded workspace's events feed, as an integrator holds one: a
 * `meta.nextCursor` the service handed out, found by following the feed over HTTP. The walk lists
 * candidateCreated only (one row of the ~6.5 each candidate has): a cursor is a place in the log
 * whatever the filters, so it serves the unfiltered feed from there on.
 * Throws when the feed lists nothing: its rows would measure an empty list (a read model the
 * seeded events do not reach).
 */
export const middleOfFeed = async (baseUrl: string, credentials: CredentialPool): Promise<FeedMiddle> => {
  const started = performance.now();
  // The cursor after each page of WALK_LIMIT rows; null stands for the start of the feed.
  const boundaries: (string | null)[] = [null];
  let created = 0;
  let requests = 0;
  for (let hasMore = true; hasMore;) {
    const page = await getPage(baseUrl, credentials, WALK_LIMIT, boundaries.at(-1) ?? null);
    requests += 1;
    created += page.data.length;
    boundaries.push(page.meta.nextCursor);
    hasMore = page.meta.hasMore;
  }
  if (created === 0) {
    throw new Error(
      'the events feed of the seeded workspace is empty (GET /v1/events?type=candidateCreated): ' +
        'the events read model was not built from the seeded log, or the seed is older than the 30 days listed',
    );
  }
  // From the page boundary before the middle row, a short page ends exactly on it.
  const half = Math.floor(created / 2);
  const before = boundaries[Math.floor(half / WALK_LIMIT)] ?? null;
  let cursor = before;
  if (half % WALK_LIMIT > 0) {
    cursor = (await getPage(baseUrl, credentials, half % WALK_LIMIT, before)).meta.nextCursor;
    requests += 1;
  }
  if (cursor === null) throw new Error('no cursor in the middle of the events feed');
  return { cursor, created, requests, seconds: (performance.now() - started) / 1000 };
};

export const describeFeed = (feed: FeedMiddle, candidates: number): string =>
  `events feed: ${feed.created} candidateCreated rows listed of ${candidates} candidates seeded (a candidate has ~6.5 rows); ` +
  `walked with type=candidateCreated in ${feed.requests} requests (${feed.seconds.toFixed(1)}s), polled from after row ${Math.floor(feed.created / 2)} of them`;
