import type { EventStore } from '#event-store';
import { allProjectionNames } from '#read-models';
import type { Infrastructure } from '../infrastructure.js';

/** How far a follower of the log is behind its head. */
export interface FollowerLag {
  /** Events after its checkpoint (counted up to LAG_COUNT_CAP). */
  events: number;
  /** Age of the oldest event it has not handled; 0 when it has handled them all. */
  seconds: number;
}

export interface ReadSideLag {
  head: bigint | null;
  projections: Map<string, FollowerLag>;
  /** Null where this process has no messaging side. */
  dispatcher: FollowerLag | null;
}

/** Beyond it a lag in events reads as this many: counting further would make a scrape cost what the lag does. */
export const LAG_COUNT_CAP = 10_000;

const CAUGHT_UP: FollowerLag = { events: 0, seconds: 0 };

const lagBehind = async (store: EventStore, head: bigint | null, checkpoint: bigint | null, now: number): Promise<FollowerLag> => {
  if (head === null || (checkpoint !== null && checkpoint >= head)) return CAUGHT_UP;
  // The oldest one whole (its recorded time); the count without data, which the adapters then skip.
  const [oldest] = await store.readAll({ after: checkpoint, maxCount: 1 });
  if (oldest === undefined) return CAUGHT_UP;
  const behind = await store.readAll({ after: checkpoint, maxCount: LAG_COUNT_CAP, dataOnly: true, dataOfTypes: [] });
  const events = behind.filter((event) => event.position <= head).length;
  return { events, seconds: Math.max(0, (now - Date.parse(oldest.recordedAt)) / 1000) };
};

/**
 * The stored checkpoints of every read model and of the dispatcher against the head of the log, as any
 * process reads them. Followers at one checkpoint (the usual case) are read once.
 */
export const readSideLag = async (infra: Infrastructure): Promise<ReadSideLag> => {
  const now = Date.now();
  const [head, checkpoints, dispatched] = await Promise.all([
    infra.eventStore.headPosition(),
    infra.documents.checkpoints(allProjectionNames),
    infra.messaging === null ? Promise.resolve(undefined) : infra.messaging.dispatchedPosition(),
  ]);
  const byCheckpoint = new Map<string, Promise<FollowerLag>>();
  const lagAt = (checkpoint: bigint | null): Promise<FollowerLag> => {
    const key = String(checkpoint);
    const lag = byCheckpoint.get(key) ?? lagBehind(infra.eventStore, head, checkpoint, now);
    byCheckpoint.set(key, lag);
    return lag;
  };
  const projections = new Map<string, FollowerLag>();
  for (const name of allProjectionNames) projections.set(name, await lagAt(checkpoints.get(name) ?? null));
  return { head, projections, dispatcher: dispatched === undefined ? null : await lagAt(dispatched) };
};
