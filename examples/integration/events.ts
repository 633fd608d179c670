import { type Envelope, type HiringApi, type StoredResult, failure } from './client.js';

/** What the events part of an integration keeps between runs. */
export interface EventsCopy {
  results: Map<string, StoredResult>;
  /** The feed's last `meta.nextCursor` (one per key mode): the next run reads the events after it. */
  eventsCursor: string | null;
  /** Envelopes already handled, from a webhook or the feed, by id, with their `createdAt`. */
  appliedEvents: Map<string, string>;
}

export type EventHandler = (envelope: Envelope) => void | Promise<void>;

/** Neither the feed (30 days) nor a resent delivery (the delivery log keeps 30 days) brings an older event again. */
const REMEMBER_IDS_MS = 31 * 24 * 60 * 60 * 1000;

// An envelope shows a result as it was then: a locked testCompleted handled after the unlock (webhooks
// are not ordered; the feed lists it as delivered) must not lock the stored copy again.
const storeResult = (results: Map<string, StoredResult>, incoming: StoredResult): void => {
  const stored = results.get(incoming.id);
  if (stored?.unlocked && !incoming.unlocked) return;
  results.set(incoming.id, { ...stored, ...incoming });
};

const updateCopy = (copy: EventsCopy, envelope: Envelope): void => {
  switch (envelope.event) {
    case 'testCompleted':
    case 'resultUnlocked': {
      const { candidate, assessment, result } = envelope.data;
      storeResult(copy.results, { ...result, candidate, assessment });
      return;
    }
    case 'assessmentCompleted': {
      const { candidate, assessment, results, reportUrl } = envelope.data;
      for (const result of results) storeResult(copy.results, { ...result, candidate, assessment, reportUrl });
      return;
    }
    default:
      // candidateCreated, candidateInvited, assessmentStarted: nothing of this copy; `onEvent` may act on them.
      return;
  }
};

/**
 * Handles an envelope once, whether a webhook or the feed brought it: the ids are shared, so an
 * event delivered and then listed (or delivered twice) is handled the first time only. Returns
 * false when it was handled before. The id is recorded only once `onEvent` succeeded: a failure is
 * handled again on the next run.
 */
export const applyEvent = async (copy: EventsCopy, envelope: Envelope, onEvent?: EventHandler): Promise<boolean> => {
  if (copy.appliedEvents.has(envelope.id)) return false;
  updateCopy(copy, envelope);
  await onEvent?.(envelope);
  copy.appliedEvents.set(envelope.id, envelope.createdAt);
  return true;
};

/**
 * Reads `GET /v1/events` from the stored cursor while `meta.hasMore`, handles every envelope in the
 * log's order and stores `meta.nextCursor` after each page (a string even when no row came), so the
 * next run starts where this one stopped. Without a stored cursor it starts 30 days back. No filter:
 * this copy wants every event (a feed cursor is bound to the workspace and mode only, so the same
 * stored cursor would also serve a poll with `type` or `since`).
 */
export const readEvents = async (api: HiringApi, copy: EventsCopy, options: { pageSize?: number; onEvent?: EventHandler } = {}): Promise<void> => {
  let hasMore = true;
  while (hasMore) {
    const query = { limit: options.pageSize ?? 100, ...(copy.eventsCursor === null ? {} : { cursor: copy.eventsCursor }) };
    const { data, error, response } = await api.GET('/v1/events', { params: { query } });
    if (!data) throw failure(response, error);
    for (const envelope of data.data) await applyEvent(copy, envelope, options.onEvent);
    copy.eventsCursor = data.meta.nextCursor;
    hasMore = data.meta.hasMore;
  }
  const forgetBefore = new Date(Date.now() - REMEMBER_IDS_MS).toISOString();
  for (const [id, createdAt] of copy.appliedEvents) if (createdAt < forgetBefore) copy.appliedEvents.delete(id);
};
