import type { ServedRow } from '../shared/document-store.port.js';

/** Characters of served JSON kept at most (UTF-16: about twice as many bytes). */
const DEFAULT_MAX_CHARS = 8 * 1024 * 1024;

interface Entry {
  rows: readonly ServedRow[];
  chars: number;
}

/**
 * Pages of served rows (`findServed`) kept by the process, keyed by their exact SQL and values.
 * Only for a store that knows every change as it is made (an embedded database: one process, one
 * connection, every write announced in the process before its commit): `invalidate` empties a
 * collection's pages, and a read that started before an invalidation never stores what it read
 * (a generation per collection), so the next read after any write goes to the database.
 * Bounded by the characters it holds; the least recently used pages go first.
 */
export class ServedPageCache {
  private readonly pages = new Map<string, Map<string, Entry>>();
  private readonly generations = new Map<string, number>();
  private chars = 0;

  constructor(private readonly maxChars = DEFAULT_MAX_CHARS) {}

  generation(collection: string): number {
    return this.generations.get(collection) ?? 0;
  }

  get(collection: string, key: string): readonly ServedRow[] | undefined {
    const pages = this.pages.get(collection);
    const entry = pages?.get(key);
    if (pages === undefined || entry === undefined) return undefined;
    // Most recently used last: eviction takes from the front.
    pages.delete(key);
    pages.set(key, entry);
    return entry.rows;
  }

  /** Stores a page read while the collection stayed at `generation`; a page read across a change is dropped. */
  set(collection: string, key: string, rows: readonly ServedRow[], generation: number): void {
    if (generation !== this.generation(collection)) return;
    let chars = key.length;
    for (const row of rows) chars += row.json.length + 16;
    if (chars > this.maxChars / 4) return;
    const pages = this.pages.get(collection) ?? new Map<string, Entry>();
    this.pages.set(collection, pages);
    const previous = pages.get(key);
    if (previous !== undefined) {
      this.chars -= previous.chars;
      pages.delete(key);
    }
    pages.set(key, { rows: Object.freeze(rows.map((row) => Object.freeze({ json: row.json, keys: Object.freeze([...row.keys]) }))), chars });
    this.chars += chars;
    this.evict();
  }

  invalidate(collection: string): void {
    this.generations.set(collection, this.generation(collection) + 1);
    const pages = this.pages.get(collection);
    if (pages === undefined) return;
    for (const entry of pages.values()) this.chars -= entry.chars;
    this.pages.delete(collection);
  }

  clear(): void {
    for (const collection of [...this.pages.keys(), ...this.generations.keys()]) this.invalidate(collection);
  }

  private evict(): void {
    while (this.chars > this.maxChars) {
      let largest: Map<string, Entry> | undefined;
      for (const pages of this.pages.values()) if (largest === undefined || pages.size > largest.size) largest = pages;
      const oldest = largest?.entries().next().value;
      if (largest === undefined || oldest === undefined) return;
      this.chars -= oldest[1].chars;
      largest.delete(oldest[0]);
    }
  }
}
