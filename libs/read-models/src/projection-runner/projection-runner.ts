import { pino, type Logger } from 'pino';
import type { RecordedEvent, Subscription } from '#event-store';
import { UnknownEventTypes } from '#platform';
import { reportStage, tracing } from '#platform/instrumentation/channels.js';
import { CheckpointConflictError, assertCheckpointsUnchanged } from '../shared/document-store.port.js';
import { handles } from '../shared/projection.js';
import { isKnownEventType } from '#domain';
import { asDomainEvent } from '../shared/recorded-domain-event.js';
import { DocumentCache, type ProjectionTarget } from './document-cache.js';
import { PositionWaiters, lowestCheckpoint } from './position-waiters.js';
import type { ProjectionRunnerOptions } from './projection-runner.options.js';

/** Documents kept between batches. */
const MAX_CACHED_DOCUMENTS = 10_000;
/** Housekeeping's first run after start; then every `housekeeping.everyMs`. */
const FIRST_HOUSEKEEPING_AFTER_MS = 10_000;

/**
 * Keeps read models up to date from the `$all` subscription. Events come one at a time; their
 * changes pile up in a document cache and are written with the checkpoints in one batch.
 * Everything touching the batch runs through one queue, so a flush never sees half an event.
 */
export class ProjectionRunner {
  private readonly names: string[];
  private readonly logger: Logger;
  private readonly cache: DocumentCache;
  private readonly waiters = new PositionWaiters();
  private checkpoints = new Map<string, bigint | null>();
  private subscription: Subscription | null = null;
  /** Bumped on every (re)subscription and stop: work queued by an older subscription is dropped. */
  private generation = 0;
  private queue: Promise<void> = Promise.resolve();
  private pendingPosition: bigint | null = null;
  private pendingEvents = 0;
  private pendingSince = 0;
  /** The request ids of the pending events, collected only while traces are made. */
  private readonly pendingRequests = new Set<string>();
  private idleTimer: NodeJS.Timeout | null = null;
  private checkTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private restarting: Promise<void> = Promise.resolve();
  private cancelRetryDelay: (() => void) | null = null;
  private stopped = false;
  private startAfter: bigint | null | undefined;
  private readonly knownEventType: (type: string) => boolean;
  private readonly unknownEvents: UnknownEventTypes;

  constructor(private readonly options: ProjectionRunnerOptions) {
    this.names = options.projections.map(({ name }) => name);
    this.logger = (options.logger ?? pino({ level: process.env['LOG_LEVEL'] ?? 'info' })).child({ component: 'projection-runner' });
    this.cache = new DocumentCache(options.documentStore, MAX_CACHED_DOCUMENTS);
    this.startAfter = options.startAfter;
    this.knownEventType = options.knownEventType ?? isKnownEventType;
    this.unknownEvents = new UnknownEventTypes('projections', this.logger, 'the read models take it in at a rebuild (npm run projections:rebuild) once every process runs the version that wrote it');
  }

  async start(): Promise<void> {
    await this.options.documentStore.prepare(this.options.projections);
    await this.subscribe();
    this.checkTimer = setInterval(() => this.verifyCheckpoints(), this.options.checkpointCheckMs ?? 1_000);
    this.checkTimer.unref();
    this.scheduleHousekeeping(FIRST_HOUSEKEEPING_AFTER_MS);
  }

  private housekeepingTimer: NodeJS.Timeout | null = null;
  private housekeepingRun: Promise<void> = Promise.resolve();

  private scheduleHousekeeping(delayMs: number): void {
    const housekeeping = this.options.housekeeping;
    if (housekeeping === undefined || this.stopped) return;
    this.housekeepingTimer = setTimeout(() => {
      this.housekeepingTimer = null;
      this.housekeepingRun = housekeeping.run()
        .catch((error: unknown) => {
          if (this.options.database?.report(error) !== true) this.logger.warn({ err: error }, 'read-model housekeeping failed; tried again at the next run');
        })
        .finally(() => this.scheduleHousekeeping(housekeeping.everyMs));
    }, delayMs);
    this.housekeepingTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearIdleTimer();
    if (this.checkTimer !== null) clearInterval(this.checkTimer);
    if (this.housekeepingTimer !== null) clearTimeout(this.housekeepingTimer);
    await this.housekeepingRun;
    this.cancelRetryDelay?.();
    const generation = this.generation;
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
    await this.restarting;
    await this.exclusive(() => (generation === this.generation ? this.flush() : Promise.resolve())).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'last batch not written at stop; it is replayed at the next start');
    });
    this.generation += 1;
    this.waiters.cancelAll();
  }

  /** True once every projection's checkpoint is at or past `position`: read-your-writes after an append. */
  waitForPosition(position: bigint, timeoutMs: number): Promise<boolean> {
    const reached = this.waiters.wait(position, timeoutMs, lowestCheckpoint(this.checkpoints));
    // Following inline work, the subscription sleeps through appends; somebody waiting wakes it.
    this.kickSubscription?.();
    return reached;
  }

  private kickSubscription: (() => void) | null = null;

  /** The position every read model has reached, or null before the first event. */
  get position(): bigint | null {
    return lowestCheckpoint(this.checkpoints);
  }

  private async subscribe(): Promise<void> {
    this.generation += 1;
    const generation = this.generation;
    try {
      await this.exclusive(async () => {
        this.checkpoints = await this.options.documentStore.checkpoints(this.names);
      });
      this.waiters.reached(lowestCheckpoint(this.checkpoints));
      const after = this.startAfter !== undefined ? this.startAfter : lowestCheckpoint(this.checkpoints);
      this.startAfter = undefined;
      this.logger.info({ after: after?.toString() ?? null, projections: this.names }, 'subscribing');
      this.subscription = this.options.eventStore.subscribeToAll({
        after,
        onBatch: (events) => this.exclusive(() => (generation === this.generation ? this.prefetch(events) : Promise.resolve())),
        handler: (event) => this.exclusive(() => (generation === this.generation ? this.handle(event, generation) : Promise.resolve())),
        onError: (error) => this.fail(generation, error),
        onCaughtUp: () => this.requestFlush(generation),
        // Inline work keeps the read models at the head: the log is read at the poll interval, in
        // batches, to catch up whatever ran without it, and at once while somebody waits.
        ...(this.options.followsInline === true
          ? { catchUpOnly: { wanted: () => this.waiters.size > 0, onKick: (kick: () => void) => { this.kickSubscription = kick; }, skipTo: () => this.inlinePosition(generation) } }
          : {}),
      });
    } catch (error) {
      this.fail(generation, error);
    }
  }

  /**
   * Where the inline work has taken every read model, when nothing is unwritten here: the log up
   * to there need not be read at all (each of its events would be skipped). Null: read on as usual.
   */
  private async inlinePosition(generation: number): Promise<bigint | null> {
    let position: bigint | null = null;
    await this.exclusive(async () => {
      if (generation === this.generation && (await this.takeUpStored())) position = lowestCheckpoint(this.checkpoints);
    });
    return position;
  }

  /**
   * With nothing unwritten here, the stored checkpoints are read and taken up (see takeUp); false
   * when something is unwritten or a stored checkpoint is behind this runner's.
   */
  private async takeUpStored(): Promise<boolean> {
    return this.pendingPosition === null && this.takeUp(await this.options.documentStore.checkpoints(this.names));
  }

  private targetsOf(event: RecordedEvent): ProjectionTarget[] {
    return this.options.projections
      .filter((projection) => handles(projection, event.type) && isAbove(event.position, this.checkpoints.get(projection.name) ?? null))
      .map((projection) => ({ projection, collection: projection.name }));
  }

  /** The documents a whole read batch touches, in one query per collection rather than one per event. */
  private async prefetch(events: readonly RecordedEvent[]): Promise<void> {
    // Again after a look before the read (skipTo): inline work may have committed in between.
    if (this.options.followsInline === true) await this.takeUpStored();
    const lowest = lowestCheckpoint(this.checkpoints);
    const domainEvents = events.filter((event) => lowest === null || event.position > lowest).map(asDomainEvent).filter((event) => event !== null);
    if (domainEvents.length > 1) await this.cache.prefetch(domainEvents, (event) => this.targetsOf(event));
  }

  private async handle(event: RecordedEvent, generation: number): Promise<void> {
    const lowest = lowestCheckpoint(this.checkpoints);
    if (lowest !== null && event.position <= lowest) return;
    // An unknown type moves the checkpoint like any event: waiting for it would stop every read model.
    const known = this.knownEventType(event.type);
    if (!known) this.unknownEvents.skipped(event);
    const domainEvent = known ? asDomainEvent(event) : null;
    if (domainEvent !== null) {
      const targets = this.targetsOf(event);
      if (targets.length > 0) await this.cache.apply(domainEvent, targets);
    }
    if (this.pendingPosition === null) this.pendingSince = Date.now();
    if (tracing()) this.pendingRequests.add(event.metadata.requestId);
    this.pendingPosition = event.position;
    this.pendingEvents += 1;
    const overdue = Date.now() - this.pendingSince >= (this.options.maxFlushDelayMs ?? 100);
    if (this.pendingEvents >= (this.options.batchSize ?? 500) || overdue) await this.flush();
    else this.scheduleIdleFlush(generation);
  }

  private async flush(): Promise<void> {
    this.clearIdleTimer();
    const position = this.pendingPosition;
    if (position === null) return;
    const changes = this.cache.takeChanges();
    // Only the read models this batch moves are expected where the runner left them: it wrote no
    // document of the others, whose checkpoints never move back. Inline work that keeps them at the
    // head meanwhile (while this runner builds a read model new in this release) is no conflict.
    const moved = new Map([...this.checkpoints].filter(([, checkpoint]) => isAbove(position, checkpoint)));
    for (const name of this.names) if (!this.checkpoints.has(name)) moved.set(name, null);
    await this.options.documentStore.applyBatch(this.names, changes, position, { expectedCheckpoints: moved });
    for (const name of this.names) {
      const checkpoint = this.checkpoints.get(name) ?? null;
      if (isAbove(position, checkpoint)) this.checkpoints.set(name, position);
    }
    this.logger.debug({ position: position.toString(), events: this.pendingEvents, documents: changes.length }, 'batch written');
    reportStage('projection', this.pendingRequests, this.pendingSince, { 'hiring.projection.events': this.pendingEvents, 'hiring.projection.documents': changes.length });
    this.pendingRequests.clear();
    this.pendingPosition = null;
    this.pendingEvents = 0;
    this.failures = 0;
    this.waiters.reached(lowestCheckpoint(this.checkpoints));
  }

  /**
   * A rebuild's switch-over may set the checkpoints below what this runner has written; a runner
   * with events to write finds out at its next batch, an idle one here, and then replays the gap.
   */
  private verifyCheckpoints(): void {
    // Not while a failure is being handled (no subscription): that would start a second restart.
    if (this.subscription === null) return;
    const generation = this.generation;
    this.exclusive(async () => {
      if (generation !== this.generation || this.stopped) return;
      const stored = await this.options.documentStore.checkpoints(this.names);
      if (this.options.followsInline === true && this.pendingPosition === null && this.takeUp(stored)) return;
      assertCheckpointsUnchanged(this.checkpoints, stored);
    }).catch((error: unknown) => this.fail(generation, error));
  }

  /**
   * With nothing unwritten here, checkpoints that only moved forward were moved by inline work
   * (or another runner): they are taken up, and the cached documents, which may predate that
   * work, are dropped. Returns false when any stored checkpoint is behind this runner's (a
   * rebuild's switch-over): that is the conflict the caller handles.
   */
  private takeUp(stored: ReadonlyMap<string, bigint | null>): boolean {
    let moved = false;
    for (const name of this.names) {
      const mine = this.checkpoints.get(name) ?? null;
      const theirs = stored.get(name) ?? null;
      if (mine !== null && (theirs === null || theirs < mine)) return false;
      if (theirs !== mine) moved = true;
    }
    if (!moved) return true;
    for (const name of this.names) this.checkpoints.set(name, stored.get(name) ?? null);
    this.cache.clear();
    this.waiters.reached(lowestCheckpoint(this.checkpoints));
    return true;
  }

  private requestFlush(generation: number): void {
    this.exclusive(() => (generation === this.generation ? this.flush() : Promise.resolve())).catch((error: unknown) => this.fail(generation, error));
  }

  private scheduleIdleFlush(generation: number): void {
    this.clearIdleTimer();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.requestFlush(generation);
    }, this.options.idleFlushMs ?? 5);
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private exclusive(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Any failure drops the unwritten batch and the cache (they may hold changes that were never
   * committed) and resubscribes from the stored checkpoints: replay is safe because events at or
   * below a checkpoint are skipped.
   */
  private fail(generation: number, error: unknown): void {
    if (this.stopped || generation !== this.generation) return;
    this.generation += 1;
    this.clearIdleTimer();
    const conflict = error instanceof CheckpointConflictError;
    const outage = !conflict && this.options.database?.report(error) === true;
    if (conflict) this.logger.info({ err: error }, 'checkpoints moved under the runner (rebuild or another runner); resuming from the store');
    else if (!outage) this.logger.error({ err: error }, 'projection failed; resubscribing');
    const retryDelayMs = this.options.retryDelayMs ?? 1_000;
    const delay = conflict ? 0 : outage ? retryDelayMs : Math.min(30_000, retryDelayMs * 2 ** this.failures);
    if (!conflict && !outage) this.failures += 1;
    const subscription = this.subscription;
    this.subscription = null;
    this.restarting = (async () => {
      await subscription?.stop().catch(() => undefined);
      await this.exclusive(async () => {
        this.cache.clear();
        this.pendingPosition = null;
        this.pendingEvents = 0;
      });
      // Cut short by stop(), which must not wait out a long back-off.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.cancelRetryDelay = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.cancelRetryDelay = null;
      if (outage) await this.untilDatabaseUp();
      if (!this.stopped) await this.subscribe();
    })();
  }

  /** Waits out an outage (the health watcher probes every second); cut short by stop(). */
  private untilDatabaseUp(): Promise<void> {
    const database = this.options.database;
    if (database === undefined || this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.cancelRetryDelay = resolve;
      void database.untilUp().then(resolve);
    }).finally(() => {
      this.cancelRetryDelay = null;
    });
  }
}

const isAbove = (position: bigint, checkpoint: bigint | null): boolean => checkpoint === null || position > checkpoint;
