import type { ChangeWatch, DocumentStore } from '../shared/document-store.port.js';
import { apiKeysProjection, type ApiKeyDocument } from './api-keys.projection.js';
import { findApiKeyByKey } from './api-keys.queries.js';

/**
 * API keys held in the process, so an authenticated request costs no database round trip. Any
 * change to the api-keys read model, by any process, empties it (the store's change feed), and
 * while the feed is not live (a lost LISTEN connection) nothing held is trusted and every lookup
 * goes to the store: a regenerated key is refused at once. Unknown keys are not remembered, so
 * guessing fills nothing; bounded at `maxKeys`, then emptied.
 * `held` answers from memory only; `reread` always asks the store and keeps what it found. ApiKeyGuard
 * rereads on every failed authentication, a held key with a wrong secret included, so that a wrong
 * secret on a real key costs what an unknown key costs (one store read) and the answer time does not
 * tell whether a key exists.
 */
export class ApiKeyCache {
  private readonly byKey = new Map<string, ApiKeyDocument>();
  /** Moves at every change: a lookup that started before one does not fill the cache with what it read. */
  private generation = 0;
  /** Lookups in flight, by key: concurrent askers share one. */
  private readonly pending = new Map<string, { generation: number; lookup: Promise<ApiKeyDocument | null> }>();
  private readonly watch: ChangeWatch;

  constructor(private readonly store: DocumentStore, private readonly maxKeys = 10_000) {
    this.watch = store.watchChanges(apiKeysProjection.name, () => this.invalidate());
  }

  /** The held key, or the store's when none is held. */
  async find(key: string): Promise<ApiKeyDocument | null> {
    return this.held(key) ?? this.reread(key);
  }

  /** The key as held in memory, without a round trip; undefined when not held or while nothing is trusted. */
  held(key: string): ApiKeyDocument | undefined {
    return this.watch.live ? this.byKey.get(key) : undefined;
  }

  /** The key as the store has it now; what it finds replaces what was held, a key gone is dropped. */
  async reread(key: string): Promise<ApiKeyDocument | null> {
    if (!this.watch.live) return findApiKeyByKey(this.store, key);
    // Requests that arrive together with the same key (a client's first burst, the first requests
    // after a restart) share one lookup: at concurrency 16 each of them read it, 5.6 lookups per
    // new key. A lookup started before a change is never joined (generation).
    const pending = this.pending.get(key);
    if (pending !== undefined && pending.generation === this.generation) return pending.lookup;
    const generation = this.generation;
    const lookup = findApiKeyByKey(this.store, key).then((found) => {
      if (found === null) this.byKey.delete(key);
      else if (generation === this.generation && this.watch.live) {
        if (this.byKey.size >= this.maxKeys && !this.byKey.has(key)) this.byKey.clear();
        this.byKey.set(key, found);
      }
      return found;
    }).finally(() => {
      if (this.pending.get(key)?.lookup === lookup) this.pending.delete(key);
    });
    this.pending.set(key, { generation, lookup });
    return lookup;
  }

  invalidate(): void {
    this.generation += 1;
    this.byKey.clear();
    this.pending.clear();
  }

  close(): void {
    this.watch.close();
  }
}
