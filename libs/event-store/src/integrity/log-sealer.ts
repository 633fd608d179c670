import type { Logger } from 'pino';
import type { EventStore } from '../event-store.port.js';
import { EventsDigest, type LogSeal, type SealSigner } from './log-seal.js';
import type { SealStore } from './seal-store.js';

export interface LogSealerOptions {
  eventStore: EventStore;
  seals: SealStore;
  signer: SealSigner;
  logger: Logger;
  /** How often the follower seals what was appended since the last seal. */
  intervalMs: number;
  batchSize?: number;
}

/**
 * Follows the log and seals the global order at intervals. Several processes may run one: the
 * sequence number is the seal's primary key, so the loser of a race drops its seal and the next
 * round continues from the winner's.
 */
export class LogSealer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LogSealerOptions) {}

  start(): void {
    const tick = (): void => {
      this.running = this.sealPending()
        .catch((error: unknown) => this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'sealing the log failed; retrying'))
        .finally(() => { if (this.timer !== null) this.timer = setTimeout(tick, this.options.intervalMs); });
    };
    this.timer = setTimeout(tick, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Seals every event after the latest seal; returns the latest seal (new or not), null on an empty log. */
  async sealPending(onProgress?: (done: number) => void): Promise<LogSeal | null> {
    const { eventStore, seals, signer } = this.options;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const previous = await seals.latest();
      const digest = new EventsDigest();
      let after = previous === null ? null : BigInt(previous.toPosition);
      const head = await eventStore.headPosition();
      while (head !== null && (after === null || after < head)) {
        const batch = await eventStore.readAll({ after, maxCount: this.options.batchSize ?? 1000 });
        if (batch.length === 0) break;
        for (const event of batch) {
          if (event.position > head) break;
          digest.add(event);
          after = event.position;
        }
        onProgress?.(digest.count);
      }
      if (digest.count === 0 || after === null) return previous;
      const { digest: eventsDigest, count } = digest.take();
      const seal = signer.sign({
        sequence: (previous?.sequence ?? 0) + 1, afterPosition: previous?.toPosition ?? null, toPosition: after.toString(), eventCount: count,
        eventsDigest, previousSignature: previous?.signature ?? null, sealedAt: new Date().toISOString(),
      });
      if (await seals.add(seal)) return seal;
    }
    return seals.latest();
  }
}
