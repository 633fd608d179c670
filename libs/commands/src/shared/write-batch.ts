import type { DomainEvent } from '#domain';
import { PERSON_ENDING_EVENTS, ownState, schemaVersionOf, shareState } from '#domain';
import { type ExpectedRevision, type NewEvent, type StreamAppend, WrongExpectedRevisionError } from '#event-store';
import { ids } from '#platform';
import { assertStorable } from './assert-storable.js';
import type { RequestContext } from './ports.js';

export interface Loaded<State> {
  state: State;
  revision: ExpectedRevision;
}

export interface DomainAppend {
  streamId: string;
  expectedRevision: ExpectedRevision;
  events: DomainEvent[];
}

type AnyEvolve = (state: never, event: never) => unknown;

/** A stream as the batch sees it: the committed revision it was read at, and its state with the batch's events. */
export interface BatchStream {
  streamId: string;
  /** Revision read from the store (the expected revision of the append); null when appended to without reading. */
  base: ExpectedRevision | null;
  state: unknown;
  evolve: AnyEvolve | null;
  /** False while `state` is the committed value other readers share: the first change copies it. */
  private: boolean;
  events: NewEvent[];
  /** The decision depends on this stream staying at `base`: appended with no events, as a check. */
  checked: boolean;
}

/** What the batch needs of the folded states (FoldedStates). */
export interface CommittedStates {
  load<State, Event>(streamId: string, initial: () => State, evolve: (state: State, event: Event) => State): Promise<Loaded<State>>;
  loadMany<State, Event>(streamIds: readonly string[], initial: () => State, evolve: (state: State, event: Event) => State): Promise<Map<string, Loaded<State>>>;
  /** The batch holds the stream's state (until the batch ends: FoldedStates.release). */
  borrow(streamId: string): void;
  /** True when the batch may change `state`, the cached one, in place (see FoldedStates.takeOwnership). */
  takeOwnership(streamId: string, state: unknown): boolean;
}

const revisionAfter = (base: ExpectedRevision | null, appended: number): ExpectedRevision => {
  const start = typeof base === 'number' ? base : -1;
  return start + appended < 0 ? 'no_stream' : start + appended;
};

/**
 * The decisions of one group commit, taken one after another: each sees the streams as the
 * previous ones left them, and all their events are appended in one transaction. A decision's
 * events join the batch only once it has returned, so a refusal leaves the batch as it was.
 */
export class WriteBatch {
  readonly streams = new Map<string, BatchStream>();
  /** Streams whose state this batch holds (given back when it ends). */
  readonly borrowed = new Set<string>();
  /** Streams whose cached state this batch changes in place (takeOwnership). */
  readonly owned = new Set<string>();
  private pending: { append: DomainAppend; metadata: NewEvent['metadata'] }[] = [];
  private pendingChecks: string[] = [];

  constructor(private readonly committed: CommittedStates, private readonly clock: () => Promise<string>) {}

  now(): Promise<string> {
    return this.clock();
  }

  /** The stream's state including the batch's earlier decisions; the state must not be kept after the decision. */
  async load<State, Event>(streamId: string, initial: () => State, evolve: (state: State, event: Event) => State): Promise<Loaded<State>> {
    const known = this.streams.get(streamId);
    if (known !== undefined) {
      // Appended to blindly by an earlier decision: deciding on it again belongs in the next batch.
      if (known.evolve === null || known.evolve !== evolve) throw new WrongExpectedRevisionError(streamId, 'any', 'no_stream');
      return { state: shareState(known.state as State), revision: revisionAfter(known.base, known.events.length) };
    }
    this.borrow(streamId);
    const loaded = await this.committed.load(streamId, initial, evolve);
    this.streams.set(streamId, { streamId, base: loaded.revision, state: loaded.state, evolve: evolve as AnyEvolve, private: false, events: [], checked: false });
    return loaded;
  }

  /** `load` for several streams of one kind, reading those the batch has not seen in one go. */
  async loadMany<State, Event>(streamIds: readonly string[], initial: () => State, evolve: (state: State, event: Event) => State): Promise<Map<string, Loaded<State>>> {
    const unseen = streamIds.filter((streamId) => !this.streams.has(streamId));
    for (const streamId of unseen) this.borrow(streamId);
    const read = await this.committed.loadMany(unseen, initial, evolve);
    for (const [streamId, loaded] of read) {
      if (!this.streams.has(streamId)) this.streams.set(streamId, { streamId, base: loaded.revision, state: loaded.state, evolve: evolve as AnyEvolve, private: false, events: [], checked: false });
    }
    const loaded = new Map<string, Loaded<State>>();
    for (const streamId of streamIds) loaded.set(streamId, await this.load(streamId, initial, evolve));
    return loaded;
  }

  private borrow(streamId: string): void {
    if (this.borrowed.has(streamId)) return;
    this.borrowed.add(streamId);
    this.committed.borrow(streamId);
  }

  /** Records the decision's events; they are appended with the batch. */
  append(appends: DomainAppend[], context: RequestContext, time: string): void {
    const metadata = { correlationId: context.correlationId, causationId: context.causationId, actor: context.actor, requestId: context.requestId, time };
    for (const append of appends) {
      if (append.events.length === 0) continue;
      for (const event of append.events) assertStorable(event.data, event.type);
      const known = this.streams.get(append.streamId);
      // Two blind appends to one stream in a batch would both expect the same revision: the later waits.
      if (known?.evolve === null && append.expectedRevision !== 'any') throw new WrongExpectedRevisionError(append.streamId, append.expectedRevision, 'no_stream');
      this.pending.push({ append, metadata });
    }
  }

  /**
   * The decision depends on a stream it loaded but does not append to: the append checks that the
   * stream is still at the revision read (a conflict otherwise, and the decision is taken again).
   */
  expect(streamId: string): void {
    if (!this.streams.has(streamId)) throw new Error(`expect(${streamId}): the stream was not loaded in this batch`);
    this.pendingChecks.push(streamId);
  }

  /**
   * A decision ended a person (PERSON_ENDING_EVENTS): the batch takes no further decision, since one
   * about the same address would be about a new person, whose events must not be sealed with the
   * key the ending retires.
   */
  ended = false;

  /** The decision returned: its events and checks become part of the batch. */
  accept(): void {
    const pending = this.pending;
    for (const streamId of this.pendingChecks) {
      const stream = this.streams.get(streamId);
      if (stream !== undefined) stream.checked = true;
    }
    this.discard();
    if (pending.some(({ append }) => append.events.some((event) => PERSON_ENDING_EVENTS.includes(event.type)))) this.ended = true;
    for (const { append, metadata } of pending) {
      const stream = this.streams.get(append.streamId) ?? this.blind(append.streamId, append.expectedRevision);
      if (stream.evolve !== null) {
        const taken = !stream.private && this.committed.takeOwnership(stream.streamId, stream.state);
        if (taken) this.owned.add(stream.streamId);
        const owned = stream.private || taken;
        let state = owned ? ownState(stream.state) : stream.state;
        for (const event of append.events) state = (stream.evolve as (state: unknown, event: DomainEvent) => unknown)(state, event);
        stream.state = state;
        stream.private = true;
      }
      for (const event of append.events) {
        stream.events.push({ id: ids.event(), type: event.type, data: event.data as unknown as Record<string, unknown>, metadata: versioned(metadata, event.type) });
      }
    }
  }

  /** The decision failed: its events and checks are dropped. */
  discard(): void {
    this.pending = [];
    this.pendingChecks = [];
  }

  /** One append per stream with events, each expecting the revision the batch read it at. */
  appends(): StreamAppend[] {
    const appends: StreamAppend[] = [];
    for (const stream of this.streams.values()) {
      if (stream.events.length > 0 || stream.checked) appends.push({ streamId: stream.streamId, expectedRevision: stream.base ?? 'any', events: stream.events });
    }
    return appends;
  }

  /** After the commit: every stream read, at the revision it has now, with its state (for the writer's cache). */
  committedStates(): { streamId: string; revision: ExpectedRevision; state: unknown; evolve: AnyEvolve }[] {
    const states: { streamId: string; revision: ExpectedRevision; state: unknown; evolve: AnyEvolve }[] = [];
    for (const stream of this.streams.values()) {
      if (stream.evolve !== null) states.push({ streamId: stream.streamId, revision: revisionAfter(stream.base, stream.events.length), state: stream.state, evolve: stream.evolve });
    }
    return states;
  }

  /** A stream appended to without reading it first (a new candidate's stream): only one decision per batch may. */
  private blind(streamId: string, expectedRevision: ExpectedRevision): BatchStream {
    const stream: BatchStream = { streamId, base: expectedRevision, state: null, evolve: null, private: false, events: [], checked: false };
    this.streams.set(streamId, stream);
    return stream;
  }
}

/**
 * The metadata of an event of `type`: the batch's own for a type still at schema version 1 (nearly
 * every type: no version recorded means 1, so their metadata is what it always was), a copy with the
 * type's version where it changed (one per type and batch: never a spread per event).
 */
const versionedCopies = new WeakMap<NewEvent['metadata'], Map<number, NewEvent['metadata']>>();
const versioned = (metadata: NewEvent['metadata'], type: string): NewEvent['metadata'] => {
  const version = schemaVersionOf(type);
  if (version === 1) return metadata;
  let copies = versionedCopies.get(metadata);
  if (copies === undefined) versionedCopies.set(metadata, (copies = new Map()));
  let copy = copies.get(version);
  if (copy === undefined) copies.set(version, (copy = { ...metadata, schemaVersion: version }));
  return copy;
};
