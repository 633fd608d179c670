import { type DomainEvent, PERSON_ENDING_EVENTS, schemaVersionOf } from '#domain';
import type { EventMetadata, NewEvent, StreamAppend } from '#event-store';
import { ids } from '#platform';
import { assertStorable } from './assert-storable.js';
import type { StreamFold } from './folds.js';
import type { RequestContext } from './ports.js';
import type { StateCache } from './state-cache.js';

/** What a decision reads: each stream's state, folded by the stream's fold. */
export interface StreamReader {
  load<State, Event>(streamId: string, fold: StreamFold<State, Event>): Promise<State>;
}

/** A stream a decision will load, named ahead (EventWriter.handle's `reads`). */
export interface StreamRead {
  readonly streamId: string;
  load(streams: StreamReader): Promise<unknown>;
}

export const streamRead = <State, Event>(streamId: string, fold: StreamFold<State, Event>): StreamRead => ({ streamId, load: (streams) => streams.load(streamId, fold) });

/** Events a decision appends to one stream. */
export interface DomainAppend {
  streamId: string;
  events: readonly DomainEvent[];
}

/**
 * What a decision returns. Every stream it appends to is expected at the revision it was loaded at;
 * one it never loaded must not exist yet (a new candidate's stream). `checks`: streams it loaded and
 * depends on without appending to them, appended to with no events so that a change fails the append.
 */
export interface Decision<Answer> {
  appends: readonly DomainAppend[];
  checks?: readonly string[];
  answer: Answer;
}

interface BatchStream {
  fold: StreamFold<unknown, DomainEvent> | null;
  /** The revision read; -1: no stream (also for a stream appended to without loading it: a new one). */
  base: number;
  state: unknown;
  events: NewEvent[];
  checked: boolean;
}

/**
 * The decisions of one lane that go to the store in one append, taken one after another: each
 * loads the streams as the ones before it left them (states are values: evolving one changes
 * nothing another decision holds). `accept` takes a decision's events only once it returned, so a
 * refusal leaves the batch as it was.
 */
export class DecisionBatch implements StreamReader {
  private readonly streams = new Map<string, BatchStream>();
  /** A decision ended a person: one about the same address now would be about someone new, whose events must not share the transaction that retires the key. */
  endedAPerson = false;

  constructor(private readonly cache: StateCache) {}

  async load<State, Event>(streamId: string, fold: StreamFold<State, Event>): Promise<State> {
    let stream = this.streams.get(streamId);
    if (stream === undefined) {
      const { state, revision } = await this.cache.load(streamId, fold);
      stream = this.streams.get(streamId) ?? { fold: fold as unknown as StreamFold<unknown, DomainEvent>, base: revision, state, events: [], checked: false };
      this.streams.set(streamId, stream);
    }
    if (stream.fold === null) {
      // A new stream an earlier decision of the batch appended to without reading it: its state is the fold of those events.
      const evolve = fold.evolve as unknown as (state: unknown, event: DomainEvent) => unknown;
      stream.fold = fold as unknown as StreamFold<unknown, DomainEvent>;
      stream.state = stream.events.reduce((state, { type, data }) => evolve(state, { type, data } as unknown as DomainEvent), fold.initial() as unknown);
    }
    if (stream.fold.name !== fold.name) throw new Error(`${streamId} is read with the fold ${fold.name}, but the batch holds it with ${stream.fold.name}`);
    return stream.state as State;
  }

  /**
   * Loads these streams together (one read where the store allows it), before any decision of the
   * batch. A load that fails here is left to the decision that loads the stream: it fails that one only.
   */
  async loadAll(reads: readonly StreamRead[]): Promise<void> {
    const unique = new Map(reads.map((read) => [read.streamId, read]));
    await Promise.allSettled([...unique.values()].map((read) => read.load(this)));
  }

  accept(decision: Decision<unknown>, context: RequestContext, time: string): void {
    for (const { events } of decision.appends) for (const event of events) assertStorable(event.data, event.type);
    for (const streamId of decision.checks ?? []) this.known(streamId).checked = true;
    const metadata: EventMetadata = { correlationId: context.correlationId, causationId: context.causationId, actor: context.actor, requestId: context.requestId, time };
    for (const { streamId, events } of decision.appends) {
      if (events.length === 0) continue;
      const stream = this.streams.get(streamId) ?? this.unread(streamId);
      if (stream.fold !== null) stream.state = events.reduce(stream.fold.evolve, stream.state);
      for (const event of events) {
        const version = schemaVersionOf(event.type);
        stream.events.push({ id: ids.event(), type: event.type, data: event.data as unknown as Record<string, unknown>, metadata: version === 1 ? metadata : { ...metadata, schemaVersion: version } });
        if (PERSON_ENDING_EVENTS.includes(event.type)) this.endedAPerson = true;
      }
    }
  }

  /** One append per stream with events or a check, each expecting the revision the batch read it at. */
  appends(): StreamAppend[] {
    return [...this.streams].filter(([, stream]) => stream.events.length > 0 || stream.checked).map(([streamId, stream]) => ({
      streamId, expectedRevision: stream.base < 0 ? 'no_stream' : stream.base, events: stream.events,
    }));
  }

  /** After the append committed: every stream loaded, with its state at the revision it has now. */
  committed(): { streamId: string; fold: StreamFold<unknown, DomainEvent>; revision: number; state: unknown }[] {
    return [...this.streams].flatMap(([streamId, { fold, base, state, events }]) =>
      fold === null || base + events.length < 0 ? [] : [{ streamId, fold, revision: base + events.length, state }]);
  }

  private known(streamId: string): BatchStream {
    const stream = this.streams.get(streamId);
    if (stream === undefined) throw new Error(`${streamId} is checked but was not loaded`);
    return stream;
  }

  /** A stream appended to without loading it: a new one (its id made by the decision), expected not to exist. */
  private unread(streamId: string): BatchStream {
    const stream: BatchStream = { fold: null, base: -1, state: null, events: [], checked: false };
    this.streams.set(streamId, stream);
    return stream;
  }
}
