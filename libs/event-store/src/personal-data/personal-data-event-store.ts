import { WrongExpectedRevisionError, readStreamsOf } from '../event-store.port.js';
import type {
  AppendOptions, AppendResult, EventStore, ExpectedRevision, FoldSnapshotRead, InlineProjector, InlineStep, NewEvent, PendingEvent, ReadAllOptions, ReadStreamsOptions, RecordedEvent, StreamAppend, SubscribeOptions, Subscription,
} from '../event-store.port.js';
import { type Person, personKey, type PersonKeyStore, type ProposedKey } from './person-keys.js';
import type { SnapshotStore } from './state-snapshots.js';
import { decryptPersonalFields, decryptPersonalFieldsForFold, decryptPersonalFieldsLater, encryptPersonalFields, personOf, sealedKeyIds } from './personal-fields.js';

// The domain names an address's registry stream with a plain SHA-256 of the address; anyone could
// recompute that from a guess. The log gets a keyed hash of it instead (HMAC under the workspace's key).
const ADDRESS_STREAM = /^candidate-email-(.+)-([0-9a-f]{40})$/;
/** Appends sealed again after another process's key got in the way (each time a different person's). */
const KEY_CONFLICT_ATTEMPTS = 4;

/**
 * Seals a person's e-mail address and names with their own key on the way into the log and opens
 * them on the way out, so the deciders, projections, e-mails and webhooks see clear values and the
 * log never does. Sits outside the integrity layer: the hash chain covers the sealed form, so the
 * log still verifies after a key is destroyed; the fields then read as ERASED.
 */
export class PersonalDataEventStore implements EventStore {
  /**
   * Clear data of the sealed events of appends in flight, by event id (what inline projectors see): an entry
   * lives exactly as long as its append call (deleted in its `finally`), so it cannot go stale; bounded so.
   */
  private readonly clearData = new Map<string, Record<string, unknown>>();
  /** Clear values are kept only while projectors run inside the appends. */
  private inlining = false;

  private readonly keysInAppend: boolean;
  private readonly endingTypes: ReadonlySet<string>;
  /** Brings an event written in an older schema version up to the current shape, on every read (the outermost layer). */
  private readonly upcast: ((event: RecordedEvent) => RecordedEvent) | null;

  /**
   * `keysInAppend` (PostgreSQL, PGlite: the keys in the log's database): the append's transaction stores a new
   * person's key, checks its keys are current and retires the key of a person it ends. Otherwise (EventStoreDB)
   * keys are made before the append and retired after it; a key cached elsewhere is not checked.
   * `endingTypes`: event types that end their person (a deleted candidate): the key is retired with it.
   */
  constructor(
    private readonly inner: EventStore,
    private readonly keys: PersonKeyStore,
    private readonly snapshots: SnapshotStore | null = null,
    options: { keysInAppend?: boolean; endingTypes?: readonly string[]; upcast?: (event: RecordedEvent) => RecordedEvent } = {},
  ) {
    if (options.keysInAppend === true && inner.runsStatements !== true) throw new Error('this event store runs no statements in its appends');
    this.keysInAppend = options.keysInAppend === true;
    this.endingTypes = new Set(options.endingTypes ?? []);
    this.upcast = options.upcast ?? null;
  }

  /** The id a stream is stored under. */
  storedStreamId(streamId: string): string {
    const match = ADDRESS_STREAM.exec(streamId);
    if (match === null) return streamId;
    const [, workspaceId = '', digest = ''] = match;
    return `candidate-email-${workspaceId}-${this.keys.addressHash(workspaceId, digest).slice(0, 40)}`;
  }

  appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    return this.appendToStreams([{ streamId, events, expectedRevision: options.expectedRevision }]);
  }

  get runsStatements(): boolean {
    return this.inner.runsStatements === true;
  }

  async appendToStreams(appends: StreamAppend[], options?: AppendOptions): Promise<AppendResult> {
    const { people, ended } = peopleIn(appends, this.endingTypes);
    for (let attempt = 1; ; attempt += 1) {
      const { stored, statements, proposed, opened, names } = await this.seal(appends, options, people, ended);
      try {
        const result = await this.inner.appendToStreams(stored, statements.length === 0 ? undefined : { statements });
        this.keys.stored(proposed);
        if (ended.length > 0) {
          if (this.keysInAppend) this.keys.forget(ended);
          else await this.keys.retire(ended);
        }
        return result;
      } catch (error) {
        // A key stood in the way: another process stored one for a person proposed here, or retired or
        // destroyed one cached here. Sealed again after a fresh lookup.
        if (this.keys.isConflict(error) && attempt < KEY_CONFLICT_ATTEMPTS) {
          this.keys.withdraw(proposed);
          this.keys.forget(people);
          continue;
        }
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        throw new WrongExpectedRevisionError(names.get(error.streamId) ?? error.streamId, error.expected, error.actual);
      } finally {
        for (const id of opened) this.clearData.delete(id);
      }
    }
  }

  /** EventStore.rehearseAppend: sealed as an append would be; then its proposed keys are withdrawn and its people forgotten. */
  async rehearseAppend(appends: StreamAppend[], options?: AppendOptions): Promise<void> {
    if (!this.inner.rehearseAppend) return;
    const { people, ended } = peopleIn(appends, this.endingTypes);
    const { stored, statements, proposed, opened } = await this.seal(appends, options, people, ended);
    try {
      await this.inner.rehearseAppend(stored, statements.length === 0 ? undefined : { statements });
    } finally {
      for (const id of opened) this.clearData.delete(id);
      this.keys.withdraw(proposed);
      this.keys.forget(people);
    }
  }

  /**
   * The appends as stored (stream ids keyed, fields sealed) with their statements; `opened`: the events whose
   * clear data is in `clearData` until the append is over; `names`: each stored id's own.
   */
  private async seal(appends: StreamAppend[], options: AppendOptions | undefined, people: readonly Person[], ended: readonly Person[]): Promise<{
    stored: StreamAppend[]; statements: string[]; proposed: ProposedKey[]; opened: string[]; names: Map<string, string>;
  }> {
    const keys = people.length === 0 ? null : await this.keys.keysFor(people, { propose: this.keysInAppend });
    const proposed = keys === null || !this.keysInAppend ? [] : this.keys.proposedAmong(keys.values());
    const statements = [...(options?.statements ?? []), ...(keys === null || !this.keysInAppend ? [] : this.keyStatements(keys, proposed, ended))];
    const names = new Map<string, string>();
    const opened: string[] = [];
    const stored = appends.map((append): StreamAppend => {
      const streamId = this.storedStreamId(append.streamId);
      names.set(streamId, append.streamId);
      if (keys === null) return { streamId, expectedRevision: append.expectedRevision, events: append.events };
      const events = append.events.map((event) => {
        const sealedEvent = sealed(event, keys);
        if (sealedEvent !== event && this.inlining) {
          this.clearData.set(event.id, event.data);
          opened.push(event.id);
        }
        return sealedEvent;
      });
      return { streamId, expectedRevision: append.expectedRevision, events };
    });
    return { stored, statements, proposed, opened, names };
  }

  /** In the append's transaction, in this order: proposed keys stored, the others checked current, ended people's retired. */
  private keyStatements(keys: ReadonlyMap<string, { keyId: string }>, proposed: readonly ProposedKey[], ended: readonly { workspaceId: string; email: string }[]): string[] {
    const proposedIds = new Set(proposed.map((key) => key.keyId));
    const current = [...new Set([...keys.values()].map((key) => key.keyId))].filter((keyId) => !proposedIds.has(keyId));
    return [
      ...(proposed.length === 0 ? [] : [this.keys.insertStatement(proposed)]),
      ...(current.length === 0 ? [] : [this.keys.currentCheck(current)]),
      ...(ended.length === 0 ? [] : [this.keys.retireStatement(ended)]),
    ];
  }

  /** The projectors get the clear values, never the sealed form: what a follower reading through this layer would build. */
  useInlineProjectors(projectors: readonly InlineProjector[]): void {
    if (!this.inner.useInlineProjectors) throw new Error('this event store runs no inline projectors');
    this.inlining = projectors.length > 0;
    const clear = <E extends PendingEvent>(event: E): E => {
      const data = this.clearData.get(event.id);
      return data === undefined ? event : { ...event, data };
    };
    this.inner.useInlineProjectors(projectors.map((projector): InlineProjector => ({
      name: projector.name,
      ...(projector.setup === undefined ? {} : { setup: projector.setup }),
      prepare: (events): InlineStep => {
        const step = projector.prepare(events.map(clear));
        return { statements: step.statements, finish: (rows, head, recorded) => step.finish(rows, head, recorded.map(clear)) };
      },
    })));
  }

  /** Makes the people's keys (or finds them) while the caller reads: the append then finds them cached. */
  expectPeople(people: readonly { workspaceId: string; email: string }[]): void {
    // A failure here changes nothing: the append asks again and answers for itself.
    if (people.length > 0) this.keys.keysFor(people, { propose: this.keysInAppend }).catch(() => undefined);
  }

  async readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]> {
    return this.open(await this.inner.readStream(this.storedStreamId(streamId), options), decryptPersonalFieldsForFold);
  }

  async readStreams(streamIds: readonly string[], options?: ReadStreamsOptions): Promise<Map<string, RecordedEvent[]>> {
    const stored = streamIds.map((streamId) => this.storedStreamId(streamId));
    const fromRevisions = new Map<string, number>();
    streamIds.forEach((streamId, index) => {
      const revision = options?.fromRevisions?.get(streamId);
      if (revision !== undefined) fromRevisions.set(stored[index] ?? streamId, revision);
    });
    const read = await readStreamsOf(this.inner, stored, { fromRevisions });
    const opened = await this.open([...read.values()].flat(), decryptPersonalFieldsForFold);
    const byId = new Map(opened.map((event) => [event.id, event]));
    return new Map(streamIds.map((streamId, index) => [streamId, (read.get(stored[index] ?? streamId) ?? []).map((event) => byId.get(event.id) ?? event)]));
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.open(await this.inner.readAll(options));
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    // A batch hint sees the same opened events the handler then gets one by one (opened once).
    let opened = new Map<string, RecordedEvent>();
    const onBatch = options.onBatch;
    return this.inner.subscribeToAll({
      ...options,
      ...(onBatch === undefined ? {} : {
        onBatch: async (events: readonly RecordedEvent[]) => {
          const list = await this.open([...events], decryptPersonalFieldsLater);
          opened = new Map(list.map((event) => [event.id, event]));
          await onBatch(list);
        },
      }),
      handler: async (event) => {
        const ready = opened.get(event.id) ?? (await this.open([event], decryptPersonalFieldsLater))[0] ?? event;
        await options.handler(ready);
      },
    });
  }

  /** Snapshots live beside the person keys: the keys that seal them are destroyed with any erasure in their workspace. */
  async readSnapshot(streamId: string, fold: string): Promise<FoldSnapshotRead | null> {
    return this.snapshots === null ? null : this.snapshots.read(this.storedStreamId(streamId), fold);
  }

  async writeSnapshot(streamId: string, fold: string, snapshot: FoldSnapshotRead & { scope: string; takenAt: number }): Promise<void> {
    await this.snapshots?.write(this.storedStreamId(streamId), fold, snapshot);
  }

  headPosition(): Promise<bigint | null> {
    return this.inner.headPosition();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /**
   * The events with their personal fields opened: names when read for stream reads (folds), every
   * field when read for subscriptions (followers skip much), all at once for readAll (a rebuild).
   */
  private async open(events: RecordedEvent[], decrypt = decryptPersonalFields): Promise<RecordedEvent[]> {
    const keyIds = new Set<string>();
    for (const event of events) sealedKeyIds(event.data, keyIds);
    const keys = keyIds.size === 0 ? null : await this.keys.load(keyIds);
    return events.map((event) => {
      const data = keys === null ? event.data : decrypt(event.data, keys);
      const opened = data === event.data ? event : { ...event, data };
      return this.upcast === null ? opened : this.upcast(opened);
    });
  }
}

/** The people the appends' events speak about, and those of them the events end (their keys retired). */
const peopleIn = (appends: readonly StreamAppend[], endingTypes: ReadonlySet<string>): { people: Person[]; ended: Person[] } => ({
  people: appends.flatMap((append) => append.events.map((event) => personOf(event.data))).filter((person) => person !== null),
  ended: appends.flatMap((append) => append.events.filter((event) => endingTypes.has(event.type)).map((event) => personOf(event.data))).filter((person) => person !== null),
});

const sealed = (event: NewEvent, keys: ReadonlyMap<string, { keyId: string; key: Buffer }>): NewEvent => {
  const person = personOf(event.data);
  const personal = person === null ? undefined : keys.get(personKey(person.workspaceId, person.email));
  return personal === undefined ? event : { ...event, data: encryptPersonalFields(event.data, personal.keyId, personal.key) };
};
