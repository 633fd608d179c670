import { WrongExpectedRevisionError, readStreamsOf } from '../event-store.port.js';
import type {
  AppendOptions, AppendResult, EventStore, ExpectedRevision, InlineProjector, NewEvent, ReadAllOptions, ReadStreamsOptions, RecordedEvent, StreamAppend, SubscribeOptions, Subscription,
} from '../event-store.port.js';
import { GENESIS_HASH, eventHash } from './event-hash.js';

interface StreamHead {
  revision: number;
  hash: string;
}

const MAX_CACHED_HEADS = 50_000;
const ANY_RETRIES = 12;

/**
 * Stamps every appended event with its recorded time and its link in the stream's hash chain, for any
 * adapter. The link needs the hash at the expected revision, nearly always cached (the command path has
 * just read the stream through here), else read. Entries are immutable facts (the event at revision N of
 * a committed stream never changes): a stale entry can only miss. At most MAX_CACHED_HEADS, oldest out.
 */
export class IntegrityEventStore implements EventStore {
  private readonly heads = new Map<string, StreamHead>();

  constructor(
    private readonly inner: EventStore,
    private readonly key: Buffer,
    private readonly now: () => Date = () => new Date(),
  ) {}

  appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    return this.appendToStreams([{ streamId, events, expectedRevision: options.expectedRevision }]);
  }

  get runsStatements(): boolean {
    return this.inner.runsStatements === true;
  }

  async appendToStreams(appends: StreamAppend[], options?: AppendOptions): Promise<AppendResult> {
    // `any` does not say which event the chain continues from: it becomes the revision read just
    // before, and a race with another writer is retried here, so callers still never see a conflict.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.appendStamped(appends, options);
      } catch (error) {
        const retriable = error instanceof WrongExpectedRevisionError && attempt < ANY_RETRIES &&
          appends.some((append) => append.streamId === error.streamId && append.expectedRevision === 'any');
        if (!retriable) throw error;
      }
    }
  }

  async readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]> {
    return this.rememberLast(streamId, await this.inner.readStream(streamId, options));
  }

  async readStreams(streamIds: readonly string[], options?: ReadStreamsOptions): Promise<Map<string, RecordedEvent[]>> {
    const read = await readStreamsOf(this.inner, streamIds, options);
    for (const [streamId, events] of read) this.rememberLast(streamId, events);
    return read;
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.inner.readAll(options);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.inner.subscribeToAll(options);
  }

  headPosition(): Promise<bigint | null> {
    return this.inner.headPosition();
  }

  /** The stamps change no event's data: the projectors see what the adapter inserts. */
  useInlineProjectors(projectors: readonly InlineProjector[]): void {
    if (!this.inner.useInlineProjectors) throw new Error('this event store runs no inline projectors');
    this.inner.useInlineProjectors(projectors);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** EventStore.rehearseAppend: stamped as an append would be; no stream's head is remembered. */
  async rehearseAppend(appends: StreamAppend[], options?: AppendOptions): Promise<void> {
    if (!this.inner.rehearseAppend) return;
    await this.inner.rehearseAppend((await this.stamp(appends)).stamped, options);
  }

  private async appendStamped(appends: StreamAppend[], options: AppendOptions | undefined): Promise<AppendResult> {
    const { stamped, lastHeads } = await this.stamp(appends);
    try {
      const result = await this.inner.appendToStreams(stamped, options);
      for (const [streamId, head] of lastHeads) this.remember(streamId, head);
      return result;
    } catch (error) {
      for (const append of appends) this.heads.delete(append.streamId);
      throw error;
    }
  }

  /** The events with their recorded time and links, and each stream's head after them. */
  private async stamp(appends: StreamAppend[]): Promise<{ stamped: StreamAppend[]; lastHeads: [string, StreamHead][] }> {
    const recordedAt = this.now().toISOString();
    const stamped: StreamAppend[] = [];
    const lastHeads: [string, StreamHead][] = [];
    for (const append of appends) {
      const { expected, head } = await this.chainStart(append);
      let previous = head;
      const events = append.events.map((event): NewEvent => {
        const revision = previous.revision + 1;
        const hash = eventHash(this.key, previous.hash, { ...event, streamId: append.streamId, revision, recordedAt });
        previous = { revision, hash };
        return { id: event.id, type: event.type, data: event.data, metadata: event.metadata, integrity: { recordedAt, hash } };
      });
      stamped.push({ streamId: append.streamId, expectedRevision: expected, events });
      if (events.length > 0) lastHeads.push([append.streamId, previous]);
    }
    return { stamped, lastHeads };
  }

  /** The event the new ones chain onto (revision -1 for a new stream) and the expected revision to send. */
  private async chainStart(append: StreamAppend): Promise<{ expected: ExpectedRevision; head: StreamHead }> {
    const genesis = { revision: -1, hash: GENESIS_HASH };
    if (append.expectedRevision === 'no_stream') return { expected: 'no_stream', head: genesis };
    if (append.expectedRevision === 'any') {
      const last = (await this.inner.readStream(append.streamId)).at(-1);
      if (last === undefined) return { expected: 'no_stream', head: genesis };
      return { expected: last.revision, head: { revision: last.revision, hash: last.hash ?? GENESIS_HASH } };
    }
    const expected = append.expectedRevision;
    const cached = this.heads.get(append.streamId);
    if (cached?.revision === expected) return { expected, head: cached };
    const read = await this.inner.readStream(append.streamId, { fromRevision: expected });
    const atExpected = read[0];
    if (atExpected?.revision !== expected) {
      const actual = (await this.inner.readStream(append.streamId)).at(-1)?.revision;
      throw new WrongExpectedRevisionError(append.streamId, expected, actual ?? 'no_stream');
    }
    // A longer stream is a conflict the adapter reports with its own check; the hash is then unused.
    return { expected, head: { revision: expected, hash: atExpected.hash ?? GENESIS_HASH } };
  }

  private rememberLast(streamId: string, events: RecordedEvent[]): RecordedEvent[] {
    const last = events.at(-1);
    if (last?.hash !== undefined) this.remember(streamId, { revision: last.revision, hash: last.hash });
    return events;
  }

  private remember(streamId: string, head: StreamHead): void {
    this.heads.delete(streamId);
    this.heads.set(streamId, head);
    if (this.heads.size > MAX_CACHED_HEADS) {
      const oldest = this.heads.keys().next();
      if (!oldest.done) this.heads.delete(oldest.value);
    }
  }
}
