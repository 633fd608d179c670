import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { type DomainEvent, validationFailed } from '../../../domain/src/index.js';
import { type EventStore, type ExpectedRevision, type RecordedEvent, WrongExpectedRevisionError } from '../../../event-store/src/event-store.port.js';
import type { Clock } from '../../../platform/src/clock/clock.js';
import type { ServiceConfig } from '../../../platform/src/config/config.js';
import { ids } from '../../../platform/src/ids/ids.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { ReadSideWaiter, RequestContext } from './ports.js';
import { CLOCK, CONFIG, EVENT_STORE, LOGGER, READ_SIDE } from './tokens.js';

export interface Loaded<State> {
  state: State;
  revision: ExpectedRevision;
}

export interface DomainAppend {
  streamId: string;
  expectedRevision: ExpectedRevision;
  events: DomainEvent[];
}

const MAX_ATTEMPTS = 12;
const STATE_CACHE_SIZE = 20_000;

interface StateCache {
  revision: number;
  state: unknown;
  evolve: (state: never, event: never) => unknown;
}

/**
 * The write path every command handler shares: load streams, fold, decide (in the handler), append
 * with the expected revisions, retry the whole decision on a conflict, then wait until the read side
 * has caught up so that the answer can be read back at once (read-your-writes).
 */
@Injectable()
export class EventWriter {
  private readonly mutex = new KeyedMutex();
  /** Least recently used last: folded states by stream, so a decision reads only the new events. */
  private readonly states = new Map<string, StateCache>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(READ_SIDE) private readonly readSide: ReadSideWaiter,
    @Inject(CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  now(): Promise<string> {
    return this.clock.now();
  }

  /**
   * Folds a stream, starting from the state this process last folded it to: only events recorded
   * since are read. States are immutable values, so a cached one is never changed by a later
   * decision; another process's appends are simply the events after the cached revision.
   */
  async load<State, Event>(streamId: string, initial: () => State, evolve: (state: State, event: Event) => State): Promise<Loaded<State>> {
    const cached = this.states.get(streamId);
    const usable = cached && cached.evolve === evolve ? cached : undefined;
    const events = await this.store.readStream(streamId, usable ? { fromRevision: usable.revision + 1 } : undefined);
    const state = events.reduce((current, event) => evolve(current, { type: event.type, data: event.data } as Event), usable ? (usable.state as State) : initial());
    const revision = events.at(-1)?.revision ?? usable?.revision;
    if (revision === undefined) return { state, revision: 'no_stream' };
    this.remember(streamId, { revision, state, evolve: evolve as StateCache['evolve'] });
    return { state, revision };
  }

  private remember(streamId: string, entry: StateCache): void {
    this.states.delete(streamId);
    this.states.set(streamId, entry);
    if (this.states.size > STATE_CACHE_SIZE) {
      const oldest = this.states.keys().next().value;
      if (oldest !== undefined) this.states.delete(oldest);
    }
  }

  readStream(streamId: string): Promise<RecordedEvent[]> {
    return this.store.readStream(streamId);
  }

  /**
   * Runs a whole decision (load, decide, append) serialized per key in this process and retried
   * on optimistic-concurrency conflicts with other processes.
   */
  async decide<T>(key: string, attempt: () => Promise<T>): Promise<T> {
    return this.mutex.run(key, async () => {
      for (let tries = 1; ; tries += 1) {
        try {
          return await attempt();
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError) || tries >= MAX_ATTEMPTS) throw error;
          this.logger.debug({ streamId: error.streamId, tries }, 'append conflict, deciding again');
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * tries));
        }
      }
    });
  }

  /** Appends atomically; returns the global position of the last event, or null when nothing was decided. */
  async append(appends: DomainAppend[], context: RequestContext, time: string): Promise<bigint | null> {
    const nonEmpty = appends.filter((append) => append.events.length > 0);
    if (nonEmpty.length === 0) return null;
    for (const append of nonEmpty) for (const event of append.events) assertStorable(event.data, event.type);
    const metadata = { correlationId: context.correlationId, causationId: context.causationId, actor: context.actor, requestId: context.requestId, time };
    const toNew = (event: DomainEvent) => ({ id: ids.event(), type: event.type, data: event.data as unknown as Record<string, unknown>, metadata });
    const result = nonEmpty.length === 1 && nonEmpty[0]
      ? await this.store.appendToStream(nonEmpty[0].streamId, nonEmpty[0].events.map(toNew), { expectedRevision: nonEmpty[0].expectedRevision })
      : await this.store.appendToStreams(nonEmpty.map((append) => ({ streamId: append.streamId, expectedRevision: append.expectedRevision, events: append.events.map(toNew) })));
    return result.position;
  }

  /** Read-your-writes: answer only once the read models show the write (bounded wait). */
  async settle(position: bigint | null): Promise<void> {
    if (position === null) return;
    const caughtUp = await this.readSide.waitForPosition(position, this.config.readYourWritesTimeoutMs);
    if (!caughtUp) this.logger.warn({ position: position.toString() }, 'read side did not catch up in time; answering anyway');
  }
}

/**
 * The last line before the log: a value PostgreSQL cannot keep (U+0000, an unpaired surrogate) in
 * any field a decider let through is refused as bad input rather than failing the append with a 500.
 */
export const assertStorable = (value: unknown, path = 'body'): void => {
  if (typeof value === 'string') {
    if (value.includes('\u0000') || !value.isWellFormed()) throw validationFailed(`${path} contains a character that cannot be stored (U+0000 or an unpaired surrogate)`);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => assertStorable(item, `${path}[${index}]`));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      assertStorable(key, path);
      assertStorable(item, `${path}.${key}`);
    }
  }
};
