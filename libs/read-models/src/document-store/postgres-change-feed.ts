import type { Pool, PoolClient } from 'pg';
import type { ChangeWatch } from '../shared/document-store.port.js';
import { CHANGES_CHANNEL as CHANNEL } from './postgres-sql.js';

const RECONNECT_DELAY_MS = 1000;

type Watcher = { topic: string; onChange: () => void };

/**
 * Who is told of changes. In-process writers announce directly (`announce`). With `listen`, a
 * dedicated connection LISTENs for the triggers' notifications, so writes made by other processes
 * arrive too; while that connection is down, watches are not live and readers must not trust a cache.
 * Without `listen` (an embedded database: one process, one connection) the in-process announcements are every change.
 */
export class ChangeFeed {
  private readonly watchers = new Set<Watcher>();
  private client: PoolClient | null = null;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly pool: Pool, private readonly listen: boolean) {}

  get live(): boolean {
    return !this.listen || this.client !== null;
  }

  watch(topic: string, onChange: () => void): ChangeWatch {
    const watcher: Watcher = { topic, onChange };
    this.watchers.add(watcher);
    if (this.listen) this.start();
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
    this.stopped = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    await this.connecting;
    const client = this.client;
    this.client = null;
    if (client === null) return;
    try {
      await client.query(`UNLISTEN ${CHANNEL}`);
      client.release();
    } catch (error) {
      client.release(error instanceof Error ? error : true);
    }
  }

  private everyone(): void {
    for (const watcher of this.watchers) watcher.onChange();
  }

  private start(): void {
    if (this.stopped || this.client !== null || this.connecting !== null) return;
    this.connecting = this.connect().finally(() => {
      this.connecting = null;
    });
  }

  private async connect(): Promise<void> {
    let client: PoolClient | null = null;
    try {
      client = await this.pool.connect();
      client.on('notification', (message) => this.announce([message.payload ?? '']));
      const listening = client;
      client.on('error', (error) => this.drop(listening, error));
      await client.query(`LISTEN ${CHANNEL}`);
      if (this.stopped) throw new Error('change feed stopped while connecting');
      this.client = client;
      // Whatever changed while nobody listened is unknown: everyone starts afresh.
      this.everyone();
    } catch {
      // Not live until a retry succeeds: readers go to the store meanwhile, so nothing is lost by waiting.
      client?.release(true);
      if (!this.stopped) this.scheduleReconnect();
    }
  }

  private drop(client: PoolClient, error: Error): void {
    if (this.client !== client) return;
    this.client = null;
    client.release(error);
    this.everyone();
    if (!this.stopped) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer !== null) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.start();
    }, RECONNECT_DELAY_MS);
    this.reconnectTimer.unref();
  }
}
