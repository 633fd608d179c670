import type { DocumentChange, DocumentStore } from '../shared/document-store.port.js';
import type { AnyProjection } from '../shared/projection.js';
import type { RecordedDomainEvent } from '../shared/recorded-domain-event.js';

/** A projection and the collection it writes to (its own, or its rebuild twin). */
export interface ProjectionTarget {
  projection: AnyProjection;
  collection: string;
}

interface CachedDocument {
  collection: string;
  id: string;
  doc: object | null;
  /** Checkpoint of the batch that wrote the stored copy: events at or below it are already in. */
  writtenAt: bigint | null;
}

const cacheKey = (collection: string, id: string): string => `${collection}\u0000${id}`;

/**
 * Documents as the writer last left them, so consecutive events on one document see each
 * other's changes before anything is written. Only safe while this writer is the only one: the
 * store's checkpoint check refuses a batch otherwise, and the owner then clears the cache.
 * An event at or below the position a document was written at is already in it and is skipped.
 */
export class DocumentCache {
  private readonly docs = new Map<string, CachedDocument>();
  private readonly dirty = new Set<string>();

  constructor(private readonly store: DocumentStore, private readonly maxDocuments: number) {}

  get changedDocuments(): number {
    return this.dirty.size;
  }

  /** Loads, in one query per collection, every document the events will touch and the cache lacks. */
  async prefetch(events: readonly RecordedDomainEvent[], targetsOf: (event: RecordedDomainEvent) => readonly ProjectionTarget[]): Promise<void> {
    const missing = new Map<string, Set<string>>();
    for (const event of events) {
      for (const { projection, collection } of targetsOf(event)) {
        for (const id of projection.documentIds(event)) {
          if (this.docs.has(cacheKey(collection, id))) continue;
          const ids = missing.get(collection) ?? new Set<string>();
          ids.add(id);
          missing.set(collection, ids);
        }
      }
    }
    for (const [collection, ids] of missing) {
      const found = await this.store.getForUpdate(collection, [...ids]);
      for (const id of ids) {
        const stored = found.get(id);
        this.docs.set(cacheKey(collection, id), { collection, id, doc: stored?.doc ?? null, writtenAt: stored?.position ?? null });
      }
    }
  }

  /** Evolves every target's documents with the event; `prefetch` must have loaded them. */
  async apply(event: RecordedDomainEvent, targets: readonly ProjectionTarget[]): Promise<void> {
    await this.prefetch([event], () => targets);
    for (const { projection, collection } of targets) {
      for (const id of new Set(projection.documentIds(event))) {
        const key = cacheKey(collection, id);
        const cached = this.docs.get(key);
        const writtenAt = cached?.writtenAt ?? null;
        if (writtenAt !== null && event.position <= writtenAt) continue;
        const current = cached?.doc ?? null;
        const next = projection.evolve(current, event, id);
        if (next === current) continue;
        this.docs.set(key, { collection, id, doc: next, writtenAt });
        this.dirty.add(key);
      }
    }
  }

  /** The changed documents since the last call; they stay cached as the state written. */
  takeChanges(): DocumentChange[] {
    const changes: DocumentChange[] = [];
    for (const key of this.dirty) {
      const cached = this.docs.get(key);
      if (cached !== undefined) changes.push({ collection: cached.collection, id: cached.id, doc: cached.doc });
    }
    this.dirty.clear();
    if (this.docs.size > this.maxDocuments) this.docs.clear();
    return changes;
  }

  clear(): void {
    this.docs.clear();
    this.dirty.clear();
  }
}
