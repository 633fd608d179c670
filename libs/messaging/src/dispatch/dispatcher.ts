import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { type DatabaseOutage, UnknownEventTypes, isRedisConnectionError } from '#platform';
import { tracing } from '#platform/instrumentation/channels.js';
import { envelopeEventName, isKnownEventType } from '#domain';
import type { EventStore, RecordedEvent, Subscription } from '#event-store';
import { enqueueInvitationEmails, invitationEmail, invitationEmailJob } from '../emails/email-jobs.js';
import type { EmailOutbox } from '../emails/outbox.js';
import type { EmailJob } from '../shared/queues.js';
import { RepeatedProblem } from '../shared/redis-errors.js';
import { buildWebhookEnvelope } from '../webhooks/envelopes.js';
import type { WebhookDeliveries } from '../webhooks/webhook-deliveries.js';
import { asWebhookSourceEvent, type WebhookSourceEvent } from '../webhooks/webhook-events.js';
import type { GetSigningSecrets, WebhookSettings } from '../webhooks/webhook-settings.js';
import type { DispatchCheckpoints } from './dispatch-checkpoints.js';
import { type CheckpointFence, FencedOutError } from './checkpoint-fence.js';

export interface DispatcherOptions {
  eventStore: EventStore;
  checkpoints: DispatchCheckpoints;
  deliveries: WebhookDeliveries;
  emailQueue: Queue<EmailJob>;
  /** Records each e-mail as its event is dispatched, so a write that waits for it reads it back at once. */
  outbox?: EmailOutbox;
  /** A BullMQ job per invitation e-mail (default true); off without SMTP, where the outbox row is the e-mail. */
  emailJobs?: boolean;
  getSigningSecrets: GetSigningSecrets;
  appUrl: string;
  logger?: Logger;
  /** Checkpoint name; one per dispatcher. */
  name?: string;
  /** E-mails are recorded in the append transaction: catch up at the poll interval, and at once while a write waits. */
  catchUpOnly?: boolean;
  /** An unreachable database is not logged here (the outage is, once): following resumes once it answers. */
  database?: DatabaseOutage;
  /**
   * Reactions to events that end a person, in the log's order after the side effects of the events
   * before, so every copy it scrubs exists. Idempotent; a failure fails the event (retried), never skips it.
   */
  erasure?: ErasureReaction;
  /**
   * The event types this version knows (default isKnownEventType). Another type (a newer version's) is
   * skipped, warned about once and recorded beside the checkpoint for a version that knows it (pickUpSkipped).
   */
  knownEventType?: (type: string) => boolean;
}

/** What the dispatcher calls for each event that ends a person (see DispatcherOptions.erasure). */
export interface ErasureReaction {
  endingTypes: readonly string[];
  erase(event: RecordedEvent): Promise<void>;
}

const SAVE_EVERY = 100;
/** Events read at a time when dispatching recorded skipped events. */
const PICK_UP_BATCH = 500;
/** Past this many e-mails recorded inline and not yet followed, the hints start again (see recordedInline). */
const MAX_INLINE_HINTS = 50_000;
/** How long a catch-up-only dispatcher may take at stop to reach the head of the log. */
const STOP_CATCH_UP_MS = 3_000;
const RETRY_DELAY_MS = 1_000;

/** The checkpoint name of the dispatcher; one dispatcher follows the log per deployment. */
export const DISPATCHER_NAME = 'messaging';

type Waiter = { position: bigint; resolve: () => void };
type Invitation = Extract<WebhookSourceEvent, { type: 'CandidateInvited' }>;

/**
 * Turns recorded events into e-mail and webhook jobs, one event at a time, in global order. Every side
 * effect has a deterministic id (job ids, delivery ids, insert-if-absent rows) and the checkpoint moves
 * only after them: a crash at any step repeats the event, and repeating it sends nothing twice.
 */
export class Dispatcher {
  private subscription: Subscription | null = null;
  private inFlight: Promise<void> | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private handled: bigint | null = null;
  /** Dispatched but not yet in the stored checkpoint (saved when caught up, every SAVE_EVERY events, at stop). */
  private unsaved = 0;
  private saving: Promise<void> = Promise.resolve();
  private waiters: Waiter[] = [];
  /** Invitation events whose e-mail their read batch already recorded (emailBatch); at most one batch (follow() empties it). */
  private readonly emailed = new Set<string>();
  /** Invitation events whose e-mail this process's append transaction recorded (recordedInline); kept across follow(). */
  private readonly recordedWithAppend = new Set<string>();
  /** The webhook settings of the workspaces of the read batch in hand, each read once (see settingsFor). */
  private batchSettings: Map<string, Promise<WebhookSettings | null>> | null = null;
  private readonly name: string;
  private fence: CheckpointFence | null = null;
  private readonly unknownEvents: UnknownEventTypes;
  /** An erasure's scrub waits for Redis: said once per outage, not with a stack per retry. */
  private readonly redisDown: RepeatedProblem;

  constructor(private readonly options: DispatcherOptions) {
    this.name = options.name ?? DISPATCHER_NAME;
    this.unknownEvents = new UnknownEventTypes('dispatcher', options.logger, 'recorded, and dispatched when a version that knows it starts');
    this.redisDown = new RepeatedProblem(options.logger, 'dispatcher waiting for Redis (an erasure scrubs its copies there); following the event store again shortly');
  }

  private knows(type: string): boolean {
    return (this.options.knownEventType ?? isKnownEventType)(type);
  }

  /**
   * `fence`: the lease this dispatcher runs under (a worker of a cluster); its checkpoint is saved
   * only while that lease is held. Without it (one process), the checkpoint only moves forward.
   */
  async start(fence: CheckpointFence | null = null): Promise<void> {
    this.fence = fence;
    this.stopped = false;
    await this.follow();
  }

  async stop(): Promise<void> {
    if (!this.stopped && this.options.catchUpOnly === true) await this.catchUpBeforeStop();
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.subscription?.stop();
    this.subscription = null;
    // Let the event in hand finish, so the checkpoint matches what was enqueued.
    await this.inFlight?.catch(() => undefined);
    await this.saveCheckpoint().catch((error: unknown) => this.options.logger?.warn({ err: error }, 'dispatch checkpoint not saved at stop; the events after it are dispatched again (idempotent)'));
  }

  /** A catch-up-only dispatcher trails the log: at stop it catches up for a few seconds, so the next start has no backlog. */
  private async catchUpBeforeStop(): Promise<void> {
    try {
      const head = await this.options.eventStore.headPosition();
      if (head !== null) await this.waitForPosition(head, STOP_CATCH_UP_MS);
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'the dispatcher did not catch up before stopping; the next start dispatches the rest (idempotent)');
    }
  }

  /** Resolves once every event up to `position` is dispatched. */
  waitForPosition(position: bigint, timeoutMs = 10_000): Promise<void> {
    if (this.handled !== null && this.handled >= position) return Promise.resolve();
    const reached = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter.resolve !== done);
        reject(new Error(`dispatcher did not reach position ${position} in ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => { clearTimeout(timer); resolve(); };
      this.waiters.push({ position, resolve: done });
    });
    this.kick?.();
    return reached;
  }

  private kick: (() => void) | null = null;

  /**
   * The append transaction recorded these e-mails: without SMTP jobs they need not be rendered again.
   * A hint only: once dropped (past MAX_INLINE_HINTS, at a restart) the e-mail is recorded if absent.
   */
  recordedInline(eventIds: readonly string[]): void {
    if (this.sendsJobs) return;
    if (this.recordedWithAppend.size + eventIds.length > MAX_INLINE_HINTS) this.recordedWithAppend.clear();
    for (const eventId of eventIds) this.recordedWithAppend.add(eventId);
  }

  /** The side effects of one event: idempotent, so it is safe to run again for the same event. */
  async dispatch(event: RecordedEvent): Promise<void> {
    const erasure = this.options.erasure;
    if (erasure !== undefined && erasure.endingTypes.includes(event.type)) await erasure.erase(event);
    const source = asWebhookSourceEvent(event);
    if (!source) return;
    if (source.type === 'CandidateInvited') await this.enqueueInvitationEmail(source);
    // The address and selection as they stand when the event is dispatched.
    const settings = await this.settingsFor(source.data.workspaceId);
    if (!settings || !settings.events.includes(envelopeEventName(source))) return;
    const envelope = await buildWebhookEnvelope(this.options.eventStore, source, this.options.appUrl);
    if (!envelope) {
      this.options.logger?.warn({ eventId: event.id, type: event.type }, 'event has no webhook payload; skipped');
      return;
    }
    await this.options.deliveries.deliverEvent(envelope, settings, tracing() ? event.metadata.requestId : undefined);
  }

  /**
   * A workspace's webhook settings, read once per read batch (without batches, per event): read after
   * the batch, they are at least as new as every event in it, as a read per event would be.
   */
  private settingsFor(workspaceId: string): Promise<WebhookSettings | null> {
    const memo = this.batchSettings;
    if (memo === null) return this.options.getSigningSecrets(workspaceId);
    let settings = memo.get(workspaceId);
    if (settings === undefined) {
      settings = this.options.getSigningSecrets(workspaceId);
      memo.set(workspaceId, settings);
    }
    return settings;
  }

  private get sendsJobs(): boolean {
    return this.options.emailJobs !== false || !this.options.outbox;
  }

  private async enqueueInvitationEmail(event: Invitation): Promise<void> {
    if (this.emailed.delete(event.id) || this.recordedWithAppend.delete(event.id)) return;
    await this.recordEmails([event]);
  }

  /** Outbox rows (insert-if-absent) and jobs, both with ids derived from the events; without SMTP, the row is all. */
  private async recordEmails(invitations: readonly Invitation[]): Promise<void> {
    const jobs = invitations.map((event) => ({ event, job: invitationEmailJob(event.id, event.data, this.options.appUrl) }));
    await this.options.outbox?.recordMany(jobs.map(({ event, job }) => invitationEmail(job, event.metadata.time)));
    if (this.sendsJobs) await enqueueInvitationEmails(this.options.emailQueue, jobs.map(({ job }) => job));
  }

  /**
   * The e-mails of a whole read batch: one outbox statement and one `addBulk`, with the same rows and
   * job ids as one by one, so a crash in between repeats them harmlessly.
   */
  private async emailBatch(events: readonly RecordedEvent[]): Promise<void> {
    const invitations = events.filter((event) => this.knows(event.type)).map(asWebhookSourceEvent).filter((source) => source?.type === 'CandidateInvited').filter((source) => !this.recordedWithAppend.has(source.id));
    if (invitations.length < 2) return;
    await this.recordEmails(invitations);
    for (const event of invitations) this.emailed.add(event.id);
  }

  private async follow(): Promise<void> {
    const after = await this.options.checkpoints.read(this.name);
    await this.pickUpSkipped(after);
    this.handled = after;
    this.unsaved = 0;
    this.emailed.clear();
    this.batchSettings = null;
    this.subscription = this.options.eventStore.subscribeToAll({
      after,
      onBatch: (events) => {
        this.batchSettings = new Map();
        return this.emailBatch(events);
      },
      handler: (event) => this.handle(event),
      onCaughtUp: () => {
        this.saveCheckpoint().catch((error: unknown) => {
          if (!(error instanceof FencedOutError)) return this.options.logger?.warn({ err: error }, 'dispatch checkpoint not saved; saved with the next events');
          void this.subscription?.stop();
          this.restartAfter(error);
        });
      },
      onError: (error) => this.restartAfter(error),
      ...(this.options.catchUpOnly === true
        ? { catchUpOnly: { wanted: () => this.waiters.length > 0, onKick: (kick: () => void) => { this.kick = kick; } } }
        : {}),
    });
  }

  private handle(event: RecordedEvent): Promise<void> {
    const work = this.handleOne(event).finally(() => { this.inFlight = null; });
    this.inFlight = work;
    return work;
  }

  private async handleOne(event: RecordedEvent): Promise<void> {
    if (this.knows(event.type)) await this.dispatch(event);
    else {
      this.unknownEvents.skipped(event);
      // Recorded before the checkpoint can pass it: a crash in between repeats the event, not loses it.
      await this.options.checkpoints.recordSkipped(this.name, event.type, event.position);
    }
    this.handled = event.position;
    this.unsaved += 1;
    this.releaseWaiters();
    if (this.unsaved >= SAVE_EVERY) await this.saveCheckpoint();
  }

  /**
   * Events an older version skipped for their unknown type, of types this version knows: dispatched
   * before following the log, then their records dropped. Out of order but each once (stable side
   * effect ids). Runs under the dispatcher's lease, so no older dispatcher records more meanwhile.
   */
  private async pickUpSkipped(checkpoint: bigint | null): Promise<void> {
    if (checkpoint === null) return;
    const skipped = (await this.options.checkpoints.skipped(this.name)).filter(({ type }) => this.knows(type));
    const lowest = skipped[0]?.position;
    if (lowest === undefined) return;
    const types = new Set(skipped.map(({ type }) => type));
    let after = lowest - 1n;
    let dispatched = 0;
    while (after < checkpoint) {
      const events = await this.options.eventStore.readAll({ after, maxCount: PICK_UP_BATCH });
      for (const event of events) {
        if (event.position > checkpoint) break;
        if (!types.has(event.type)) continue;
        await this.dispatch(event);
        dispatched += 1;
      }
      const last = events.at(-1);
      if (last === undefined) break;
      after = last.position;
    }
    for (const { type, position } of skipped) await this.options.checkpoints.clearSkipped(this.name, type, position);
    this.options.logger?.info({ types: [...types], from: lowest.toString(), to: checkpoint.toString(), dispatched }, 'events skipped by an older version dispatched');
  }

  /**
   * Saved once per read batch, not per event: a crash repeats at most that batch, and every side
   * effect has a deterministic id, so repeating sends nothing twice.
   */
  private saveCheckpoint(): Promise<void> {
    this.saving = this.saving.catch(() => undefined).then(async () => {
      const position = this.handled;
      if (this.unsaved === 0 || position === null) return;
      const unsaved = this.unsaved;
      await this.options.checkpoints.save(this.name, position, this.fence);
      this.unsaved = Math.max(0, this.unsaved - unsaved);
    });
    return this.saving;
  }

  private releaseWaiters(): void {
    const handled = this.handled;
    if (handled === null) return;
    const ready = this.waiters.filter((waiter) => waiter.position <= handled);
    this.waiters = this.waiters.filter((waiter) => waiter.position > handled);
    for (const waiter of ready) waiter.resolve();
  }

  /** The subscription stops after a failure; follow again from the saved checkpoint, which repeats the failed event. */
  private restartAfter(error: unknown): void {
    this.subscription = null;
    if (error instanceof FencedOutError) {
      // Another process holds the lease now: its dispatcher goes on from the checkpoint; this one
      // stays stopped until its own lease keeper stops it (or it takes the lease again).
      this.options.logger?.warn({ fence: error.fence.fence }, 'dispatcher fenced out: another process took over its lease; not following any more');
      return;
    }
    const database = this.options.database;
    const outage = database?.report(error) === true;
    // Redis unreachable (an erasure scrubbing its copies): the outage has its own line (redis-health.ts); one line here, not a stack per retry.
    if (!outage && isRedisConnectionError(error)) this.redisDown.report({ reason: error instanceof Error ? error.message : String(error) });
    else if (!outage) this.options.logger?.error({ err: error }, 'dispatcher failed; following the event store again shortly');
    if (this.stopped) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopped) return;
      const ready = outage && database ? database.untilUp() : Promise.resolve();
      void ready.then(() => (this.stopped ? undefined : this.follow())).catch((failure: unknown) => this.restartAfter(failure));
    }, RETRY_DELAY_MS);
  }
}
