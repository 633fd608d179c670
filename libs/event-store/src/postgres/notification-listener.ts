import type pg from 'pg';
import type { Logger } from 'pino';
import type { WakeSignal } from './wake-signal.js';

const RECONNECT_DELAY_MS = 1000;

/**
 * Holds one pooled connection that LISTENs for appends made by other processes and wakes the
 * subscriptions. Best effort: while it is down (or disabled), subscriptions still poll, so a lost
 * notification only costs one poll interval.
 */
export class NotificationListener {
  private client: pg.PoolClient | null = null;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly wakeSignal: WakeSignal,
    private readonly logger: Logger,
  ) {}

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
      client.on('notification', () => this.wakeSignal.notify());
      const listening = client;
      client.on('error', (error) => this.drop(listening, error));
      await client.query(`LISTEN ${this.channel}`);
      if (this.stopped) throw new Error('listener stopped while connecting');
      this.client = client;
      // Events committed while we were not listening are found by the next poll; wake now anyway.
      this.wakeSignal.notify();
    } catch (error) {
      client?.release(true);
      if (!this.stopped) {
        this.logger.warn({ err: error }, 'event store LISTEN failed; subscriptions fall back to polling');
        this.scheduleReconnect();
      }
    }
  }

  private drop(client: pg.PoolClient, error: Error): void {
    // Errors while connecting are handled by connect(); only the live connection is dropped here.
    if (this.client !== client) return;
    this.client = null;
    client.release(error);
    if (this.stopped) return;
    this.logger.warn({ err: error }, 'event store LISTEN connection lost; subscriptions fall back to polling');
    this.scheduleReconnect();
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
