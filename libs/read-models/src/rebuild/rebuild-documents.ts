import type { DocumentChange, DocumentStore } from '../shared/document-store.port.js';
import type { RecordedDomainEvent } from '../shared/recorded-domain-event.js';
import type { ProjectionTarget } from '../projection-runner/document-cache.js';

/** Past `maxDocuments`, collections holding at most this share of it are kept in memory (see takeChanges). */
const KEPT_COLLECTION_SHARE = 0.01;

interface Held {
  collection: string;
  id: string;
  doc: object | null;
  /** Written to the store before (or read back from it): its next write replaces a row. */
  written: boolean;
}

/**
 * The documents of a rebuild, evolved in memory from position 0 into empty tables. A document
 * this rebuild never wrote cannot be in the store, so only one written and then dropped from
 * memory (past `maxDocuments`) is ever read back: no read per batch, no await per event.
 * Documents are kept per collection, by id: no key is built per document and event (a rebuild
 * looks one up twice for every event that touches it).
 */
export class RebuildDocuments {
  private readonly held = new Map<string, Map<string, Held>>();
  private heldCount = 0;
  private readonly dirty = new Set<Held>();
  /** Written to the store and no longer held: the store has their latest state. */
  private readonly dropped = new Map<string, Set<string>>();

  constructor(private readonly store: DocumentStore, private readonly maxDocuments: number) {}

  get changedDocuments(): number {
    return this.dirty.size;
  }

  private collection(name: string): Map<string, Held> {
    let documents = this.held.get(name);
    if (documents === undefined) {
      documents = new Map();
      this.held.set(name, documents);
    }
    return documents;
  }

  /** Makes every document the events touch available; `beforeRead` runs before any read-back. */
  async load(events: readonly RecordedDomainEvent[], targetsOf: (event: RecordedDomainEvent) => readonly ProjectionTarget[], beforeRead: () => Promise<void>): Promise<void> {
    const readBack = new Map<string, Set<string>>();
    for (const event of events) {
      for (const { projection, collection } of targetsOf(event)) {
        const documents = this.collection(collection);
        const dropped = this.dropped.get(collection);
        for (const id of projection.documentIds(event)) {
          if (documents.has(id)) continue;
          if (dropped?.has(id) === true) readBack.set(collection, (readBack.get(collection) ?? new Set<string>()).add(id));
          else {
            documents.set(id, { collection, id, doc: null, written: false });
            this.heldCount += 1;
          }
        }
      }
    }
    if (readBack.size === 0) return;
    await beforeRead();
    for (const [collection, ids] of readBack) {
      const found = await this.store.getForUpdate(collection, [...ids]);
      const documents = this.collection(collection);
      for (const id of ids) {
        this.dropped.get(collection)?.delete(id);
        documents.set(id, { collection, id, doc: found.get(id)?.doc ?? null, written: true });
        this.heldCount += 1;
      }
    }
  }

  /** Evolves the loaded documents with one event, synchronously. */
  apply(event: RecordedDomainEvent, targets: readonly ProjectionTarget[]): void {
    for (const { projection, collection } of targets) {
      const documents = this.held.get(collection);
      const ids = projection.documentIds(event);
      for (let index = 0; index < ids.length; index += 1) {
        const id = ids[index] as string;
        // An id listed twice is evolved once.
        if (index > 0 && ids.indexOf(id) < index) continue;
        const held = documents?.get(id);
        if (held === undefined) throw new Error(`document ${collection}/${id} was not loaded`);
        const next = projection.evolve(held.doc, event, id);
        if (next === held.doc) continue;
        held.doc = next;
        this.dirty.add(held);
      }
    }
  }

  /**
   * The changed documents; past `maxDocuments` held, the big collections are dropped from memory
   * (`emptied`): once these changes are written, the store has every document dropped.
   */
  takeChanges(): { changes: DocumentChange[]; emptied: boolean } {
    const changes: DocumentChange[] = [];
    for (const held of this.dirty) {
      changes.push({ collection: held.collection, id: held.id, doc: held.doc, firstWrite: !held.written });
      held.written = true;
    }
    this.dirty.clear();
    if (this.heldCount <= this.maxDocuments) return { changes, emptied: false };
    for (const [collection, documents] of this.held) {
      // A collection of few documents (assessments, workspaces) stays: each is touched all along
      // the log, and reading them back cost the rebuild a wait at each. The many documents of a
      // big one (candidates, results) are touched over a short stretch of the log, then rarely again.
      if (documents.size <= this.maxDocuments * KEPT_COLLECTION_SHARE) continue;
      let dropped = this.dropped.get(collection);
      if (dropped === undefined) {
        dropped = new Set();
        this.dropped.set(collection, dropped);
      }
      for (const id of documents.keys()) dropped.add(id);
      this.heldCount -= documents.size;
      documents.clear();
    }
    return { changes, emptied: true };
  }
}
