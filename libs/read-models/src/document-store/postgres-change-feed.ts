import type { Pool } from 'pg';
import { NotificationListener } from '#event-store';
import type { ChangeWatch } from '../shared/document-store.port.js';
import { CHANGES_CHANNEL } from './postgres-sql.js';

type Watcher = { topic: string; onChange: () => void };

/**
 * Who is told of changes. In-process writers announce directly (`announce`). With `listen`, a
 * dedicated connection LISTENs for the triggers' notifications, so writes made by other processes
 * arrive too; while that connection is down, watches are not live and readers must not trust a cache.
 * Without `listen` (an embedded database: one process, one connection) the in-process announcements are every change.
 */
export class ChangeFeed {
  private readonly watchers = new Set<Watcher>();
  private readonly listener: NotificationListener | null;

  constructor(pool: Pool, listen: boolean) {
    // Whatever changed while nobody listened is unknown: on every (re)start and loss everyone starts afresh.
    // A failed LISTEN is only retried: until then readers go to the store, so nothing is lost by waiting.
    const everyone = (): void => {
      for (const watcher of this.watchers) watcher.onChange();
    };
    this.listener = listen
      ? new NotificationListener(pool, CHANGES_CHANNEL, { onNotification: (topic) => this.announce([topic]), onListening: everyone, onLost: everyone })
      : null;
  }

  get live(): boolean {
    return this.listener === null || this.listener.listening;
  }

  watch(topic: string, onChange: () => void): ChangeWatch {
    const watcher: Watcher = { topic, onChange };
    this.watchers.add(watcher);
    this.listener?.start();
    const feed = this;
    return {
      get live() {
        return feed.live;
      },
      close: () => {
        this.watchers.delete(watcher);
      },
    };
  }

  announce(topics: Iterable<string>): void {
    const changed = new Set(topics);
    if (changed.size === 0) return;
    for (const watcher of this.watchers) if (changed.has(watcher.topic)) watcher.onChange();
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
  }
}

/** The in-process feeds of pools nobody LISTENs on: every store on one such pool tells the others' watchers. */
const inProcessFeeds = new WeakMap<Pool, ChangeFeed>();

/**
 * The change feed of a store: its own LISTEN connection with `listen`; without (one process, one
 * connection) the feed of the pool, shared by every store on it, so a write through one store
 * reaches the caches of the others.
 */
export const changeFeedFor = (pool: Pool, listen: boolean): ChangeFeed => {
  if (listen) return new ChangeFeed(pool, true);
  let feed = inProcessFeeds.get(pool);
  if (feed === undefined) {
    feed = new ChangeFeed(pool, false);
    inProcessFeeds.set(pool, feed);
  }
  return feed;
};
