import type { EventStore, RecordedEvent } from '#event-store';

/**
 * Batches of the log read one after the other, each asked for as soon as the previous one arrived,
 * up to `depth` batches ahead of the reader: the database and the network work while the reader
 * evolves, and the reader never waits for a round trip it could have started earlier. A batch
 * shorter than `batchSize` is the tail of the log as it was when read, maybe well before the
 * reader got there: nothing is read after it (the reader looks again with a new ReadAhead).
 */
export class ReadAhead {
  private readonly buffered: Promise<RecordedEvent[]>[] = [];
  private reading = false;
  private ended = false;

  /** Reads the log after `after` (null: from its start), the data of events of `dataOfTypes` only. */
  constructor(
    private readonly eventStore: EventStore,
    private readonly batchSize: number,
    private readonly depth: number,
    private after: bigint | null,
    private readonly dataOfTypes: readonly string[],
  ) {
    this.pump();
  }

  /** The next batch, in log order. */
  next(): Promise<RecordedEvent[]> {
    const batch = this.buffered.shift();
    if (batch === undefined) throw new Error('nothing left to read: the last batch was short');
    this.pump();
    return batch;
  }

  private pump(): void {
    if (this.reading || this.ended || this.buffered.length >= this.depth) return;
    this.reading = true;
    // Projections read position, id, type, data and time only: the store may leave the rest out (dataOnly).
    const batch = this.eventStore.readAll({ after: this.after, maxCount: this.batchSize, dataOnly: true, dataOfTypes: this.dataOfTypes });
    this.buffered.push(batch);
    batch.then(
      (events) => {
        this.reading = false;
        this.after = events.at(-1)?.position ?? this.after;
        if (events.length < this.batchSize) this.ended = true;
        this.pump();
      },
      () => {
        // The reader gets the error from this batch; nothing is read after it.
        this.reading = false;
        this.ended = true;
      },
    );
  }
}
