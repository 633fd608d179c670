import type { Logger } from 'pino';
import { type EventStore, WrongExpectedRevisionError } from '#event-store';
import type { FoldedStates } from './folded-states.js';
import type { ReadYourWrites } from './read-your-writes.js';
import { WriteBatch } from './write-batch.js';

/** A decision that meets another writer's append this many times in a row is refused (never seen: a safety net). */
const MAX_CONFLICTS = 50;
const MAX_DECISIONS_PER_BATCH = 32;
/** Jitter before deciding again after a conflict, per conflict already met, in ms (capped). */
const CONFLICT_BACKOFF_MS = 5;
const CONFLICT_BACKOFF_MAX_MS = 100;

/** A decision to run again, in the lane of `key` (null: the lane it ran in). */
interface Retry {
  job: Job;
  key: string | null;
}

/** One decision waiting for its turn; `conflicts` counts the appends it lost to another writer. */
interface Job {
  attempt: (batch: WriteBatch) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  conflicts: number;
}

/**
 * Queues and group commit. Decisions on one key (the stream a decision is about) queue in this
 * process, so 50 concurrent invitations of one address are decided one after another, not as 49
 * conflicts. Those that queued while a batch was being written are decided together, one after
 * another, each seeing the streams as the previous one left them, and appended in ONE
 * `appendToStreams` (one transaction). A refusal fails only its own decision. A conflict (another
 * lane or process appended first) decides again on fresh reads until it succeeds or a real
 * refusal appears: a client never sees it. A decision that lost on a stream other than its key
 * (150 unlocks of one workspace, each keyed on its candidate, all charging the workspace) moves to
 * that stream's lane: the decisions contending for a stream then queue and commit together there,
 * instead of each losing to the others again (150 of them took O(n^2) appends and 35 s). A store
 * error other than a conflict re-runs the decisions one by one, so only the one at fault fails.
 */
export class DecisionLanes {
  private readonly lanes = new Map<string, Job[]>();

  constructor(
    private readonly store: EventStore,
    private readonly states: FoldedStates,
    private readonly readYourWrites: ReadYourWrites,
    private readonly now: () => Promise<string>,
    private readonly logger: Logger,
  ) {}

  decide<T>(key: string, attempt: (batch: WriteBatch) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.enqueue(key, { attempt, resolve: resolve as (value: unknown) => void, reject, conflicts: 0 });
    });
  }

  private enqueue(key: string, job: Job): void {
    const lane = this.lanes.get(key);
    if (lane !== undefined) {
      lane.push(job);
      return;
    }
    this.lanes.set(key, [job]);
    void this.drain(key);
  }

  private async drain(key: string): Promise<void> {
    const lane = this.lanes.get(key) ?? [];
    try {
      while (lane.length > 0) {
        const again: Job[] = [];
        for (const retry of await this.runBatch(lane.splice(0, MAX_DECISIONS_PER_BATCH), key)) {
          if (retry.key === null || retry.key === key) again.push(retry.job);
          else this.enqueue(retry.key, retry.job);
        }
        lane.unshift(...again);
      }
    } catch (error) {
      for (const job of lane.splice(0)) job.reject(error);
    } finally {
      this.lanes.delete(key);
    }
  }

  /** Decides and appends the jobs; returns those that must be decided again, and in which lane. */
  private async runBatch(jobs: Job[], key: string): Promise<Retry[]> {
    const batch = new WriteBatch(this.states, this.now);
    try {
      return await this.decideAndAppend(batch, jobs, key);
    } finally {
      this.states.release(batch.owned, batch.borrowed);
    }
  }

  private async decideAndAppend(batch: WriteBatch, jobs: Job[], key: string): Promise<Retry[]> {
    const decided: { job: Job; value: unknown }[] = [];
    const again: Retry[] = [];
    for (const [index, job] of jobs.entries()) {
      if (batch.ended) {
        again.push(...jobs.slice(index).map((waiting) => ({ job: waiting, key: null })));
        break;
      }
      try {
        const value = await job.attempt(batch);
        batch.accept();
        decided.push({ job, value });
      } catch (error) {
        batch.discard();
        // Two blind appends to one stream in a batch: the later one is decided in the next batch.
        if (error instanceof WrongExpectedRevisionError && (job.conflicts += 1) < MAX_CONFLICTS) again.push({ job, key: null });
        else job.reject(error);
      }
    }
    const appends = batch.appends();
    if (appends.length === 0) {
      for (const { job, value } of decided) job.resolve(value);
      return again;
    }
    let result: Awaited<ReturnType<EventStore['appendToStreams']>>;
    try {
      result = await this.store.appendToStreams(appends);
    } catch (error) {
      return [...(await this.afterFailedAppend(error, decided.map(({ job }) => job), key)), ...again];
    }
    // The next batch is decided while this one waits for the read side.
    const write = { inline: result.inline ?? [], events: appends.flatMap((append) => append.events) };
    const answered = this.readYourWrites.settle(result.position, write).then(() => {
      for (const { job, value } of decided) job.resolve(value);
    });
    for (const committed of batch.committedStates()) {
      if (typeof committed.revision === 'number') this.states.committed(committed.streamId, committed.evolve, committed.revision, committed.state, answered);
    }
    return again;
  }

  private async afterFailedAppend(error: unknown, decided: Job[], key: string): Promise<Retry[]> {
    if (error instanceof WrongExpectedRevisionError) {
      const retry = decided.filter((job) => {
        job.conflicts += 1;
        if (job.conflicts < MAX_CONFLICTS) return true;
        this.logger.error({ streamId: error.streamId, conflicts: job.conflicts }, 'a decision kept losing its append to other writers; refused');
        job.reject(error);
        return false;
      });
      this.logger.debug({ streamId: error.streamId, decisions: retry.length }, 'append conflict, deciding again');
      // Lost on a stream other than its key: queued in that stream's lane, with whoever else contends for it.
      if (error.streamId !== key) return retry.map((job) => ({ job, key: error.streamId }));
      // Lost on the stream of its own lane (another process appended): a growing jitter first.
      const conflicts = Math.max(1, ...retry.map((job) => job.conflicts));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(CONFLICT_BACKOFF_MAX_MS, CONFLICT_BACKOFF_MS * conflicts)));
      return retry.map((job) => ({ job, key: null }));
    }
    // Not a conflict: decide them one by one, so that only the decision at fault fails.
    if (decided.length > 1) {
      const again: Retry[] = [];
      for (const job of decided) again.push(...(await this.runBatch([job], key)));
      return again;
    }
    for (const job of decided) job.reject(error);
    return [];
  }
}
