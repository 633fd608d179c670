import { WrongExpectedRevisionError } from './event-store.port.js';
import type { AppendResult, EventStore, NewEvent, RecordedEvent } from './event-store.port.js';

export interface Decider<State, Command, Event> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
}

export interface HandleCommandOptions<Event> {
  toNewEvent: (event: Event) => NewEvent;
  /**
   * Turns a stored event back into a domain event before folding. Default: `{ type, data }`, the
   * shape domain events have (libs/domain/src/events.ts), since the store holds what toNewEvent wrote.
   */
  fromRecordedEvent?: (event: RecordedEvent) => Event;
  /** Retries after a conflicting concurrent append. Default 5. */
  maxRetries?: number;
}

export interface HandleCommandResult<Event> {
  events: Event[];
  /** null when the decision produced no events (nothing was appended). */
  result: AppendResult | null;
}

const DEFAULT_MAX_RETRIES = 5;

function asDomainEvent<Event>(event: RecordedEvent): Event {
  return { type: event.type, data: event.data } as Event;
}

/**
 * Reads the stream, folds it into state, decides, and appends with the revision it read. A
 * concurrent append in between makes the append fail with WrongExpectedRevisionError; the whole
 * read-decide-append cycle then runs again on the fresh stream, at most maxRetries more times.
 * Business refusals thrown by decide are not retried.
 */
export async function handleCommand<State, Command, Event>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: HandleCommandOptions<Event>,
): Promise<HandleCommandResult<Event>> {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const fromRecordedEvent = options.fromRecordedEvent ?? asDomainEvent<Event>;
  for (let attempt = 0; ; attempt += 1) {
    const recorded = await store.readStream(streamId);
    const state = recorded.map(fromRecordedEvent).reduce(decider.evolve, decider.initialState());
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, result: null };
    const last = recorded.at(-1);
    try {
      const result = await store.appendToStream(streamId, events.map(options.toNewEvent), {
        expectedRevision: last === undefined ? 'no_stream' : last.revision,
      });
      return { events, result };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxRetries) throw error;
    }
  }
}
