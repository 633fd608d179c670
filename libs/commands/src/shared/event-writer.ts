import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { EventStore } from '#event-store';
import type { Clock, ServiceConfig } from '#platform';
import { DecisionLanes } from './decision-lanes.js';
import { FoldedStates } from './folded-states.js';
import type { ReadSideWaiter } from './ports.js';
import { ReadYourWrites } from './read-your-writes.js';
import { CLOCK, CONFIG, EVENT_STORE, LOGGER, READ_SIDE } from './tokens.js';
import type { Loaded, WriteBatch } from './write-batch.js';

export type { DomainAppend, Loaded } from './write-batch.js';
export { assertStorable } from './assert-storable.js';

type Evolve<State, Event> = (state: State, event: Event) => State;

/**
 * The one write path every command handler uses: `decide(key, attempt)` loads through the batch,
 * decides with a pure decider, records events with `batch.append` and answers once they are in the
 * log and the read side shows them. Its three jobs live apart: the queues and group commit
 * (DecisionLanes), the folded states and snapshots (FoldedStates), the read-your-writes wait
 * (ReadYourWrites). docs/architecture.md, "The write path".
 */
@Injectable()
export class EventWriter {
  private readonly states: FoldedStates;
  private readonly lanes: DecisionLanes;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(READ_SIDE) readSide: ReadSideWaiter,
    @Inject(CONFIG) config: ServiceConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.states = new FoldedStates(store, logger);
    const now = (): Promise<string> => this.clock.now();
    this.lanes = new DecisionLanes(store, this.states, new ReadYourWrites(readSide, config.readYourWritesTimeoutMs, logger), now, logger);
  }

  now(): Promise<string> {
    return this.clock.now();
  }

  /**
   * Runs one decision: `attempt` loads through the batch, decides and records its events with
   * `batch.append`; the value it returns is answered once the events are appended and the read side
   * shows them. It may run more than once (after a conflict): it must not have other effects.
   */
  decide<T>(key: string, attempt: (batch: WriteBatch) => Promise<T>): Promise<T> {
    return this.lanes.decide(key, attempt);
  }

  /** A committed state outside any decision (lookups before deciding). Read it at once and keep nothing. */
  load<State, Event>(streamId: string, initial: () => State, evolve: Evolve<State, Event>): Promise<Loaded<State>> {
    return this.states.load(streamId, initial, evolve);
  }

  /** See FoldedStates.peek: no round trip when this process holds the state, for fields an older state cannot get wrong. */
  peek<State, Event>(streamId: string, initial: () => State, evolve: Evolve<State, Event>, maxAgeMs = Number.POSITIVE_INFINITY): Promise<Loaded<State>> {
    return this.states.peek(streamId, initial, evolve, maxAgeMs);
  }

  /** See FoldedStates.prefetch: reads of streams a decision about to be queued will load. */
  prefetch<State, Event>(streamIds: readonly string[], initial: () => State, evolve: Evolve<State, Event>): void {
    this.states.prefetch(streamIds, initial, evolve);
  }

  /** Passes the store the hint that events about these people are coming (see EventStore.expectPeople). */
  expectPeople(people: readonly { workspaceId: string; email: string }[]): void {
    this.store.expectPeople?.(people);
  }

  /** The snapshot writes queued so far, done (before the store closes). */
  flushSnapshots(): Promise<void> {
    return this.states.flushSnapshots();
  }
}
