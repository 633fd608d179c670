import type { EventStore, RecordedEvent } from '#event-store';

interface PendingRead {
  streamId: string;
  fromRevision: number;
  resolve: (events: RecordedEvent[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Stream reads asked for in one turn of the event loop (of one decision or of other lanes) go to the
 * store as ONE `readStreams`, each from its own revision, where the adapter has it. Nothing is kept.
 */
export class StreamReads {
  private pending: PendingRead[] = [];

  constructor(private readonly store: EventStore) {}

  since(streamId: string, fromRevision: number): Promise<RecordedEvent[]> {
    if (this.store.readStreams === undefined) return this.readOne(streamId, fromRevision);
    return new Promise((resolve, reject) => {
      const first = this.pending.length === 0;
      this.pending.push({ streamId, fromRevision, resolve, reject });
      if (first) queueMicrotask(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const reads = this.pending;
    this.pending = [];
    const fromRevisions = new Map<string, number>();
    for (const { streamId, fromRevision } of reads) fromRevisions.set(streamId, Math.min(fromRevision, fromRevisions.get(streamId) ?? fromRevision));
    const only = reads.length === 1 ? reads[0] : undefined;
    try {
      const read = only !== undefined
        ? new Map([[only.streamId, await this.readOne(only.streamId, only.fromRevision)]])
        : await (this.store.readStreams as NonNullable<EventStore['readStreams']>)([...fromRevisions.keys()], { fromRevisions });
      for (const { streamId, fromRevision, resolve } of reads) resolve((read.get(streamId) ?? []).filter((event) => event.revision >= fromRevision));
    } catch (error) {
      if (only !== undefined) only.reject(error);
      // Reads of other decisions came along: each is tried alone, so only the one at fault fails.
      else for (const { streamId, fromRevision, resolve, reject } of reads) this.readOne(streamId, fromRevision).then(resolve, reject);
    }
  }

  private readOne(streamId: string, fromRevision: number): Promise<RecordedEvent[]> {
    return this.store.readStream(streamId, fromRevision > 0 ? { fromRevision } : undefined);
  }
}
