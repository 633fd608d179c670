import { excludeSystemEvents, type AllStreamSubscription, type EventStoreDBClient } from '@eventstore/db-client';
import type { Logger } from 'pino';
import type { SubscribeOptions, Subscription } from '../event-store.port.js';
import { fromPosition, isSystemEvent, toRecordedEvent } from './esdb-mapping.js';

/**
 * Catch-up subscription to $all. `for await` pulls one event at a time and awaits the handler before
 * the next: the stream's buffer fills, the client stops reading, and gRPC flow control holds the
 * server back (an `on('data')` handler would run handlers concurrently and out of order).
 */
export class EsdbSubscription implements Subscription {
  private readonly subscription: AllStreamSubscription;
  private readonly finished: Promise<void>;
  private stopped = false;
  private handling = false;
  private caughtUpPending = false;
  private lastPosition: bigint | null;

  constructor(
    client: EventStoreDBClient,
    private readonly options: SubscribeOptions,
    private readonly logger: Logger,
  ) {
    this.lastPosition = options.after;
    this.subscription = client.subscribeToAll({ fromPosition: fromPosition(options.after), filter: excludeSystemEvents() });
    // The server says "caught up" (EventStoreDB 23.10+) when it has sent the head, possibly before
    // the handler has worked through the buffer: report it once the buffer is drained.
    this.subscription.on('caughtUp', () => {
      this.caughtUpPending = true;
      if (!this.handling) this.reportCaughtUpIfDrained();
    });
    this.finished = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription.unsubscribe();
    await this.finished;
  }

  private reportCaughtUpIfDrained(): void {
    if (!this.caughtUpPending || this.subscription.readableLength > 0 || this.stopped) return;
    this.caughtUpPending = false;
    this.options.onCaughtUp?.(this.lastPosition);
  }

  private async run(): Promise<void> {
    try {
      for await (const resolved of this.subscription) {
        if (this.stopped) break;
        const raw = resolved.event;
        if (raw === undefined || isSystemEvent(raw)) continue;
        if (this.lastPosition !== null && raw.position.commit <= this.lastPosition) continue;
        const event = toRecordedEvent(raw);
        if (event !== null) {
          this.handling = true;
          await this.options.handler(event);
          this.handling = false;
        }
        this.lastPosition = raw.position.commit;
        this.reportCaughtUpIfDrained();
      }
    } catch (error) {
      if (this.stopped) return;
      this.stopped = true;
      await this.subscription.unsubscribe().catch(() => undefined);
      if (this.options.onError) this.options.onError(error);
      else this.logger.error({ err: error }, 'EventStoreDB subscription stopped on an error');
    }
  }
}
