import type { DocumentChange, DocumentStore } from '../shared/document-store.port.js';
import type { RecordedDomainEvent } from '../shared/recorded-domain-event.js';
import type { ProjectionTarget } from '../projection-runner/document-cache.js';
import type { AnyProjection } from '../shared/projection.js';

/** Past `maxDocuments`, collections holding at most this share of it are kept in memory (see takeChanges). */
const KEPT_COLLECTION_SHARE = 0.01;

interface Held {
  collection: string;
  id: string;
  doc: object | null;
  /** Written to the store before (or read back from it): its next write replaces a row. */
  written: boolean;
}

/** One event to evolve one document with, through one projection. */
interface Step {
  event: RecordedDomainEvent;
  projection: AnyProjection;
  held: Held;
}

/**
 * The documents of a rebuild, evolved in memory from position 0 into empty tables. A document
 * this rebuild never wrote cannot be in the store, so only one written and then dropped from
 * memory (past `maxDocuments`) is ever read back: no read per batch, no await per event.
 * Documents are kept per collection, by id: no key is built per document and event.
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

  /**
   * Evolves the documents the events touch, in log order. Every document is found or made first;
   * one dropped from memory is read back (`beforeRead` runs before any read-back). Each event's ids
   * are asked for and looked up once: some read models build their ids at every call, and a second
   * lookup while evolving cost a 1.05M-event rebuild about a second.
   */
  async evolve(events: readonly RecordedDomainEvent[], targetsOf: (event: RecordedDomainEvent) => readonly ProjectionTarget[], beforeRead: () => Promise<void>): Promise<void> {
    const steps: Step[] = [];
    const readBack = new Map<string, Held[]>();
    for (const event of events) {
      for (const { projection, collection } of targetsOf(event)) {
        const documents = this.collection(collection);
        const ids = projection.documentIds(event);
        for (let index = 0; index < ids.length; index += 1) {
          const id = ids[index] as string;
          // An id listed twice is evolved once.
          if (index > 0 && ids.indexOf(id) < index) continue;
          let held = documents.get(id);
          if (held === undefined) {
            // A document never written cannot be in the store; one dropped is read back below.
            const dropped = this.dropped.get(collection)?.delete(id) === true;
            held = { collection, id, doc: null, written: dropped };
            documents.set(id, held);
            this.heldCount += 1;
            if (dropped) {
              const waiting = readBack.get(collection);
              if (waiting === undefined) readBack.set(collection, [held]);
              else waiting.push(held);
            }
          }
          steps.push({ event, projection, held });
        }
      }
    }
    if (readBack.size > 0) {
      await beforeRead();
      for (const [collection, waiting] of readBack) {
        const found = await this.store.getForUpdate(collection, waiting.map(({ id }) => id));
        for (const held of waiting) held.doc = found.get(held.id)?.doc ?? null;
      }
    }
    for (const { event, projection, held } of steps) {
      const next = projection.evolve(held.doc, event, held.id);
      if (next === held.doc) continue;
      held.doc = next;
      this.dirty.add(held);
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
