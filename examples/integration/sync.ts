import { type Candidate, type Completion, type HiringApi, type Invitation, failure } from './client.js';
import { type EventHandler, type EventsCopy, readEvents } from './events.js';

/** What an integration keeps between runs: its copy, and where it stopped. */
export interface SyncState extends EventsCopy {
  candidates: Map<string, Candidate>;
  /** Completions by id (candidate and assessment; it never changes). */
  completions: Map<string, Completion>;
  /** The invitations of the assessments followed, by assessment id, then by address. */
  invitations: Map<string, Map<string, Invitation>>;
  /** The last `completedAt` seen: the next run asks for results `since` it (inclusive). */
  resultsSince: string | null;
  /**
   * The previous run's start on the service's clock (its first answer's `Date`, less a margin): the
   * next run asks for candidates and completions `updated_since` it (inclusive).
   */
  updatedSince: string | null;
}

/** Covers the `Date` header's whole seconds and a write being answered as the run began; repeats are harmless (matched on id). */
const CLOCK_MARGIN_MS = 5_000;
/** The most rows a list without a cursor answers at once. */
const PAGE = 100;

export const emptySyncState = (): SyncState => ({
  results: new Map(), candidates: new Map(), completions: new Map(), invitations: new Map(), resultsSince: null, updatedSince: null, eventsCursor: null,
  appliedEvents: new Map(),
});

/** The service's clock at `response`, less the margin. */
const serviceClock = (response: Response): string => {
  const date = Date.parse(response.headers.get('date') ?? '');
  if (Number.isNaN(date)) throw new Error('the answer has no Date header');
  return new Date(date - CLOCK_MARGIN_MS).toISOString();
};

/**
 * `/v1/completions` has no cursor: it is paged forward on `updatedAt`. The bound is inclusive, so
 * each page repeats the previous page's last time (matched on id). A full page whose rows all carry
 * the time asked from cannot move on (more than PAGE completions in one millisecond): narrowed by
 * assessment, or read from the events feed, which pages exactly (docs/integrating.md).
 */
const syncCompletions = async (api: HiringApi, state: SyncState): Promise<void> => {
  let since = state.updatedSince ?? undefined;
  for (;;) {
    const query = { limit: PAGE, order: 'asc' as const, ...(since ? { updated_since: since } : {}) };
    const { data, error, response } = await api.GET('/v1/completions', { params: { query } });
    if (!data) throw failure(response, error);
    for (const completion of data.data) state.completions.set(completion.id, completion);
    const last = data.data.at(-1)?.updatedAt;
    if (data.data.length < PAGE || last === undefined) return;
    if (last === since) throw new Error(`more than ${PAGE} completions updated at ${last}: read that moment from the events feed`);
    since = last;
  }
};

/** Every invitation of one assessment (pending and registered), following `meta.nextCursor`; replaces what was kept. */
const syncInvitations = async (api: HiringApi, state: SyncState, assessmentId: string, limit: number): Promise<void> => {
  const rows = new Map<string, Invitation>();
  let cursor: string | undefined;
  do {
    const query = { limit, ...(cursor ? { cursor } : {}) };
    const { data, error, response } = await api.GET('/v1/assessments/{assessmentId}/invitations', { params: { path: { assessmentId }, query } });
    if (!data) throw failure(response, error);
    for (const invitation of data.data) rows.set(invitation.email, invitation);
    cursor = data.meta.nextCursor ?? undefined;
  } while (cursor);
  state.invitations.set(assessmentId, rows);
};

/**
 * One run of the sync pattern (docs/integrating.md, "Keeping a copy in sync"). The run's clock is the
 * service's: the `Date` of its first answer, less a margin, becomes the next run's `updated_since`.
 * (1) Results completed since the last stored `completedAt`, following `meta.nextCursor` to the end;
 * (2) candidates updated since the previous run, which brings later unlocks; (3) completions updated
 * since the previous run (an unlock moves `updatedAt`, not `completedAt`); (4) the invitations of the
 * assessments followed, registered or not (a person invited but not registered has no candidate);
 * (5) the events feed from the stored cursor, each envelope handled once by id (`onEvent`), webhooks
 * and feed alike. The filters are inclusive, so a row may come twice: rows are matched on id and replaced.
 */
export const syncOnce = async (
  api: HiringApi,
  state: SyncState,
  options: { pageSize?: number; onEvent?: EventHandler; followAssessments?: readonly string[] } = {},
): Promise<SyncState> => {
  const limit = options.pageSize ?? 100;
  let runStart: string | null = null;
  // A cursor belongs to its filters: `since` stays as it was for the whole walk and moves on after it.
  const since = state.resultsSince;
  let latest = since;
  let cursor: string | undefined;
  do {
    const query: { limit: number; since?: string; cursor?: string } = { limit, ...(since ? { since } : {}), ...(cursor ? { cursor } : {}) };
    const { data, error, response } = await api.GET('/v1/results', { params: { query } });
    if (!data) throw failure(response, error);
    runStart ??= serviceClock(response);
    for (const row of data.data) {
      state.results.set(row.id, row);
      if (latest === null || row.completedAt > latest) latest = row.completedAt;
    }
    cursor = data.meta.nextCursor ?? undefined;
  } while (cursor);
  state.resultsSince = latest;

  cursor = undefined;
  do {
    const query: { limit: number; updated_since?: string; cursor?: string } = { limit, ...(state.updatedSince ? { updated_since: state.updatedSince } : {}), ...(cursor ? { cursor } : {}) };
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

  await syncCompletions(api, state);
  for (const assessmentId of options.followAssessments ?? []) await syncInvitations(api, state, assessmentId, limit);
  state.updatedSince = runStart;

  await readEvents(api, state, options);
  return state;
};
