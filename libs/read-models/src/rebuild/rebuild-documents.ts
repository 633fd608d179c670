import type { DocumentChange, DocumentStore } from '../shared/document-store.port.js';
import type { RecordedDomainEvent } from '../shared/recorded-domain-event.js';
import type { ProjectionTarget } from '../projection-runner/document-cache.js';

const keyOf = (collection: string, id: string): string => `${collection}\u0000${id}`;

interface Held {
  collection: string;
  id: string;
  doc: object | null;
}

/**
 * The documents of a rebuild, evolved in memory from position 0 into empty tables. A document
 * this rebuild never wrote cannot be in the store, so only one written and then dropped from
 * memory (past `maxDocuments`) is ever read back: no read per batch, no await per event.
 */
export class RebuildDocuments {
  private readonly held = new Map<string, Held>();
  private readonly dirty = new Set<string>();
  /** Written to the store and no longer held: the store has their latest state. */
  private readonly dropped = new Set<string>();

  constructor(private readonly store: DocumentStore, private readonly maxDocuments: number) {}

  get changedDocuments(): number {
    return this.dirty.size;
  }

  /** Makes every document the events touch available; `beforeRead` runs before any read-back. */
  async load(events: readonly RecordedDomainEvent[], targetsOf: (event: RecordedDomainEvent) => readonly ProjectionTarget[], beforeRead: () => Promise<void>): Promise<void> {
    const readBack = new Map<string, Set<string>>();
    for (const event of events) {
      for (const { projection, collection } of targetsOf(event)) {
        for (const id of projection.documentIds(event)) {
          const key = keyOf(collection, id);
          if (this.held.has(key)) continue;
          if (this.dropped.has(key)) readBack.set(collection, (readBack.get(collection) ?? new Set<string>()).add(id));
          else this.held.set(key, { collection, id, doc: null });
        }
      }
    }
    if (readBack.size === 0) return;
    await beforeRead();
    for (const [collection, ids] of readBack) {
      const found = await this.store.getForUpdate(collection, [...ids]);
      for (const id of ids) {
        const key = keyOf(collection, id);
        this.dropped.delete(key);
        this.held.set(key, { collection, id, doc: found.get(id)?.doc ?? null });
      }
    }
  }

  /** Evolves the loaded documents with one event, synchronously. */
  apply(event: RecordedDomainEvent, targets: readonly ProjectionTarget[]): void {
    for (const { projection, collection } of targets) {
      for (const id of new Set(projection.documentIds(event))) {
        const key = keyOf(collection, id);
        const held = this.held.get(key);
        if (held === undefined) throw new Error(`document ${key} was not loaded`);
        const next = projection.evolve(held.doc, event, id);
        if (next === held.doc) continue;
        held.doc = next;
        this.dirty.add(key);
      }
    }
  }

  /** The changed documents; past `maxDocuments` held, memory is emptied (the store has them all). */
  takeChanges(): DocumentChange[] {
    const changes: DocumentChange[] = [];
    for (const key of this.dirty) {
      const held = this.held.get(key);
      if (held !== undefined) changes.push({ collection: held.collection, id: held.id, doc: held.doc });
    }
    this.dirty.clear();
    if (this.held.size > this.maxDocuments) {
      for (const key of this.held.keys()) this.dropped.add(key);
      this.held.clear();
    }
    return changes;
  }
}
