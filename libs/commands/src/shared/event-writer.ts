import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { type AppendResult, type EventStore, type StreamAppend, WrongExpectedRevisionError } from '#event-store';
import type { Clock, ServiceConfig } from '#platform';
import { type Decision, DecisionBatch, type StreamRead, type StreamReader } from './decision-batch.js';
import type { StreamFold } from './folds.js';
import type { ReadSideWaiter, RequestContext } from './ports.js';
import { StateCache } from './state-cache.js';
import { CLOCK, CONFIG, EVENT_STORE, LOGGER, READ_SIDE } from './tokens.js';

export { type Decision, type DomainAppend, type StreamRead, type StreamReader, streamRead } from './decision-batch.js';
export { assertStorable } from './assert-storable.js';

/** A decision that loses its append to other writers this many times in a row is refused (a safety net, never seen). */
const MAX_CONFLICTS = 50;
const MAX_DECISIONS_PER_BATCH = 32;
/** Jitter before deciding again after a conflict, per conflict already met, in ms (capped). */
const CONFLICT_BACKOFF_MS = 5;
const CONFLICT_BACKOFF_MAX_MS = 100;

/** Decides with the streams as loaded; may run more than once (after a conflict), so it must have no other effect. */
export type Decide<Answer> = (streams: StreamReader, now: string) => Promise<Decision<Answer>>;

interface Job {
  decide: Decide<unknown>;
  reads: readonly StreamRead[];
  context: RequestContext;
  resolve: (answer: unknown) => void;
  reject: (error: unknown) => void;
  conflicts: number;
}

/**
 * The one write path (docs/architecture.md, "The write path"): load each stream (cached state and
 * the events after it), decide, append with the expected revisions, retry a real conflict, answer
 * once the read side shows the write. Decisions on one key queue in a lane of this process, so
 * concurrent requests on one assessment are not conflicts; those queued during an append are
 * decided together (DecisionBatch) and appended at once. A conflict decides them again on fresh
 * reads, in the lane of the stream it was lost on (150 unlocks of one workspace: otherwise O(n²)
 * appends). Any other store error re-runs them one by one, so only the one at fault fails.
 */
@Injectable()
export class EventWriter {
  private readonly cache: StateCache;
  private readonly lanes = new Map<string, Job[]>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(READ_SIDE) private readonly readSide: ReadSideWaiter,
    @Inject(CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.cache = new StateCache(store, logger);
  }

  /**
   * Runs `decide` in the lane of `key`; answers its answer once the read side shows its events.
   * `reads`: a hint, streams `decide` will load, read for the whole batch at once.
   */
  handle<Answer>(key: string, context: RequestContext, decide: Decide<Answer>, reads: readonly StreamRead[] = []): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.enqueue(key, { decide, reads, context, resolve: resolve as (answer: unknown) => void, reject, conflicts: 0 });
    });
  }

  /** The write path but the commit (EventStore.rehearseAppend), before a process serves: no lane, nothing kept. */
  async rehearse(context: RequestContext, decide: Decide<unknown>): Promise<void> {
    if (!this.store.rehearseAppend) return;
    const batch = new DecisionBatch(this.cache);
    const now = await this.clock.now();
    batch.accept(await decide(batch, now), context, now);
    await this.store.rehearseAppend(batch.appends());
  }

  /** Passes the store the hint that events about these people are coming (see EventStore.expectPeople). */
  expectPeople(people: readonly { workspaceId: string; email: string }[]): void {
    this.store.expectPeople?.(people);
  }

  /** The snapshot writes queued so far, done (before the store closes). */
  flushSnapshots(): Promise<void> {
    return this.cache.flushSnapshots();
  }

  private enqueue(key: string, job: Job): void {
    const lane = this.lanes.get(key);
    if (lane !== undefined) return void lane.push(job);
    this.lanes.set(key, [job]);
    void this.drain(key);
  }

  private async drain(key: string): Promise<void> {
    const lane = this.lanes.get(key) ?? [];
    try {
      while (lane.length > 0) {
        const again = await this.run(lane.splice(0, MAX_DECISIONS_PER_BATCH), key, lane);
        lane.unshift(...again.filter((retry) => retry.lane === key).map(({ job }) => job));
        for (const retry of again) if (retry.lane !== key) this.enqueue(retry.lane, retry.job);
      }
    } catch (error) {
      for (const job of lane.splice(0)) job.reject(error);
    } finally {
      this.lanes.delete(key);
    }
  }

  /**
   * Decides and appends the jobs as one batch; answers those to decide again, and in which lane.
   * `lane`: jobs that queue there while the batch loads and decides join it before it is appended (up to
   * MAX_DECISIONS_PER_BATCH), with their own reads and time: requests arrive a few at a time (each after
   * the edge's own work), and each batch has a fixed cost (its reads, its transaction, the followers it
   * wakes); docs/architecture.md, "Lanes and batches".
   */
  private async run(jobs: Job[], key: string, lane?: Job[]): Promise<{ job: Job; lane: string }[]> {
    const batch = new DecisionBatch(this.cache);
    const decided: { job: Job; answer: unknown }[] = [];
    const later: { job: Job; lane: string }[] = [];
    let taken = jobs.length;
    for (let turn: Job[] = jobs; turn.length > 0;) {
      let now: string;
      try {
        [now] = await Promise.all([this.clock.now(), batch.loadAll(turn.flatMap((job) => job.reads))]);
      } catch (error) {
        for (const job of turn) job.reject(error);
        break;
      }
      for (const job of turn) {
        if (batch.endedAPerson) later.push({ job, lane: key });
        else {
          try {
            const decision = await job.decide(batch, now);
            batch.accept(decision, job.context, now);
            decided.push({ job, answer: decision.answer });
          } catch (error) {
            job.reject(error);
          }
        }
      }
      turn = lane === undefined || batch.endedAPerson ? [] : lane.splice(0, MAX_DECISIONS_PER_BATCH - taken);
      taken += turn.length;
    }
    const appends = batch.appends();
    if (appends.length === 0) {
      for (const { job, answer } of decided) job.resolve(answer);
      return later;
    }
    let result: AppendResult;
    try {
      result = await this.store.appendToStreams(appends);
    } catch (error) {
      return [...(await this.afterFailedAppend(error, decided.map(({ job }) => job), key)), ...later];
    }
    // The lane decides its next batch while this one waits for the read side. A snapshot the append
    // makes due is encoded once these decisions are answered (tens of ms for a long fold).
    const answered = this.answerWhenVisible(result, appends, decided);
    for (const { streamId, fold, revision, state } of batch.committed()) this.cache.committed(streamId, fold as StreamFold<unknown, never>, revision, state, answered);
    return later;
  }

  private async afterFailedAppend(error: unknown, jobs: Job[], key: string): Promise<{ job: Job; lane: string }[]> {
    if (!(error instanceof WrongExpectedRevisionError)) {
      if (jobs.length === 1) jobs[0]?.reject(error);
      const again: { job: Job; lane: string }[] = [];
      if (jobs.length > 1) for (const job of jobs) again.push(...(await this.run([job], key)));
      return again;
    }
    const retry = jobs.filter((job) => {
      job.conflicts += 1;
      if (job.conflicts < MAX_CONFLICTS) return true;
      this.logger.error({ streamId: error.streamId, conflicts: job.conflicts }, 'a decision kept losing its append to other writers; refused');
      job.reject(error);
      return false;
    });
    if (error.streamId === key) {
      const conflicts = Math.max(1, ...retry.map((job) => job.conflicts));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(CONFLICT_BACKOFF_MAX_MS, CONFLICT_BACKOFF_MS * conflicts)));
    }
    return retry.map((job) => ({ job, lane: error.streamId }));
  }

  /** Read-your-writes: answered once the read side shows the write (a bounded wait; inline read models already do). */
  private async answerWhenVisible(result: AppendResult, appends: StreamAppend[], decided: { job: Job; answer: unknown }[]): Promise<void> {
    const write = { inline: result.inline ?? [], events: appends.flatMap((append) => append.events) };
    const caughtUp = await this.readSide.waitForPosition(result.position, this.config.readYourWritesTimeoutMs, write).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'waiting for the read side failed; answering anyway');
      return true;
    });
    if (!caughtUp) this.logger.warn({ position: result.position.toString() }, 'read side did not catch up in time; answering anyway');
    for (const { job, answer } of decided) job.resolve(answer);
  }
}
