import { type Candidate, type HiringApi, failure } from './client.js';
import { type EventHandler, type EventsCopy, readEvents } from './events.js';

/** What an integration keeps between runs: its copy of results and candidates, and where it stopped. */
export interface SyncState extends EventsCopy {
  candidates: Map<string, Candidate>;
  /** The last `completedAt` seen: the next run asks for results `since` it (inclusive). */
  resultsSince: string | null;
  /** When the previous run started: the next run asks for candidates `updated_since` it (inclusive). */
  candidatesSince: string | null;
}

const CLOCK_MARGIN_MS = 60_000;

export const emptySyncState = (): SyncState => ({
  results: new Map(), candidates: new Map(), resultsSince: null, candidatesSince: null, eventsCursor: null, appliedEvents: new Map(),
});

/**
 * One run of the sync pattern: (a) results completed since the last stored `completedAt`, following
 * `meta.nextCursor` to the end; (b) candidates updated since the previous run, which brings later
 * unlocks. Both filters are inclusive, so a row may come twice: rows are matched on `id` and replaced.
 * (c) The events feed from the stored cursor: every envelope a webhook brings, or would have brought
 * (no address saved, a delivery missed), handled once by id (`onEvent`), webhooks and feed alike.
 */
export const syncOnce = async (api: HiringApi, state: SyncState, options: { pageSize?: number; onEvent?: EventHandler } = {}): Promise<SyncState> => {
  const limit = options.pageSize ?? 100;
  // A margin for clock skew between this machine and the service: repeats are harmless (matched on id), misses are not.
  const startedAt = new Date(Date.now() - CLOCK_MARGIN_MS).toISOString();
  // A cursor belongs to its filters: `since` stays as it was for the whole walk and moves on after it.
  const since = state.resultsSince;
  let latest = since;
  let cursor: string | undefined;
  do {
    const query: { limit: number; since?: string; cursor?: string } = { limit, ...(since ? { since } : {}), ...(cursor ? { cursor } : {}) };
    const { data, error, response } = await api.GET('/v1/results', { params: { query } });
    if (!data) throw failure(response, error);
    for (const row of data.data) {
      state.results.set(row.id, row);
      if (latest === null || row.completedAt > latest) latest = row.completedAt;
    }
    cursor = data.meta.nextCursor ?? undefined;
  } while (cursor);
  state.resultsSince = latest;

  cursor = undefined;
  do {
    const query: { limit: number; updated_since?: string; cursor?: string } = { limit, ...(state.candidatesSince ? { updated_since: state.candidatesSince } : {}), ...(cursor ? { cursor } : {}) };
    const { data, error, response } = await api.GET('/v1/candidates', { params: { query } });
    if (!data) throw failure(response, error);
    for (const candidate of data.data) {
      state.candidates.set(candidate.id, candidate);
      // A later unlock shows in the candidate's results: carry it over to the stored result rows.
      for (const result of candidate.assessments.flatMap((entry) => entry.results)) {
        const stored = state.results.get(result.id);
        if (stored) state.results.set(result.id, { ...stored, ...result });
      }
    }
    cursor = data.meta.nextCursor ?? undefined;
  } while (cursor);
  state.candidatesSince = startedAt;

  await readEvents(api, state, options);
  return state;
};
