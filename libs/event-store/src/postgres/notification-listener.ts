import type pg from 'pg';
import type { Logger } from 'pino';

const RECONNECT_DELAY_MS = 1000;

/** What a listener's owner is told: each notification, each (re)start of listening, each loss. */
export interface NotificationHandlers {
  onNotification(payload: string): void;
  /** Listening again after a gap: whatever was notified meanwhile is unknown. */
  onListening(): void;
  onLost?(): void;
}

/**
 * Holds one pooled connection that LISTENs on a channel, reconnecting after a second when it is
 * lost. Best effort: its owners treat a gap as "anything may have changed" (the event store's
 * subscriptions poll, the read side's caches go to the store), so no notification is relied upon.
 */
export class NotificationListener {
  private client: pg.PoolClient | null = null;
  private stopped = false;
  /** A failure was logged and no LISTEN has succeeded since: an outage is one line, not one a second. */
  private failing = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly handlers: NotificationHandlers,
    /** With a logger, failures are one warning line each, ending with `fallback`. */
    private readonly logger: { logger: Logger; fallback: string } | null = null,
  ) {}

  get listening(): boolean {
    return this.client !== null;
  }

  start(): void {
    if (this.stopped || this.client !== null || this.connecting !== null) return;
    this.connecting = this.connect().finally(() => {
      this.connecting = null;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    await this.connecting;
    const client = this.client;
    this.client = null;
    if (client === null) return;
    try {
      await client.query(`UNLISTEN ${this.channel}`);
      client.release();
    } catch (error) {
      client.release(error instanceof Error ? error : true);
    }
  }

  private async connect(): Promise<void> {
    let client: pg.PoolClient | null = null;
    try {
      client = await this.pool.connect();
      client.on('notification', (message) => this.handlers.onNotification(message.payload ?? ''));
      const listening = client;
      client.on('error', (error) => this.drop(listening, error));
      await client.query(`LISTEN ${this.channel}`);
      if (this.stopped) throw new Error('listener stopped while connecting');
      this.client = client;
      if (this.failing) this.logger?.logger.info(`listening on ${this.channel} again`);
      this.failing = false;
      this.handlers.onListening();
    } catch (error) {
      client?.release(true);
      if (!this.stopped) {
        this.warn(error, 'LISTEN failed');
        this.scheduleReconnect();
      }
    }
  }

  private drop(client: pg.PoolClient, error: Error): void {
    // Errors while connecting are handled by connect(); only the live connection is dropped here.
    if (this.client !== client) return;
    this.client = null;
    client.release(error);
    this.handlers.onLost?.();
    if (this.stopped) return;
    this.warn(error, 'LISTEN connection lost');
    this.scheduleReconnect();
  }

  private warn(error: unknown, what: string): void {
    if (this.failing) return;
    this.failing = true;
    this.logger?.logger.warn({ err: error instanceof Error ? error.message : String(error) }, `${what} on ${this.channel}; ${this.logger.fallback}`);
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
