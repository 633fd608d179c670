import type { Logger } from 'pino';
import type { ReadAllOptions, RecordedEvent, SubscribeOptions, Subscription } from '../event-store.port.js';
import type { WakeSignal } from './wake-signal.js';

export interface PollingSource {
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  wakeSignal: WakeSignal;
  pollIntervalMs: number;
  batchSize: number;
  logger: Logger;
}

/**
 * Catch-up subscription over readAll: hands each batch's events over one at a time (backpressure);
 * after a short batch it sleeps until woken or the poll interval passes. Polling is the guarantee,
 * wake-ups cut latency. Correct only because no lower position commits later (postgres-append.ts).
 */
export class PollingSubscription implements Subscription {
  private readonly abort = new AbortController();
  private readonly finished: Promise<void>;

  constructor(
    private readonly source: PollingSource,
    private readonly options: SubscribeOptions,
    onFinished: () => void,
  ) {
    this.finished = this.run().finally(onFinished);
  }

  /** Resolves once the handler call in progress has returned; nothing is handed over after it. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.finished;
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private kicked = false;
  private kick: (() => void) | null = null;

  /**
   * At the head: until an append wakes it or the poll interval passes. A catch-up-only subscriber
   * sleeps through the wake-ups it does not want, up to the poll interval, unless kicked.
   */
  private async sleep(version: number): Promise<void> {
    const { wakeSignal, pollIntervalMs } = this.source;
    const lazy = this.options.catchUpOnly;
    if (lazy === undefined) return wakeSignal.wait(version, pollIntervalMs, this.abort.signal);
    const deadline = performance.now() + pollIntervalMs;
    let since = version;
    for (;;) {
      const remaining = deadline - performance.now();
      if (remaining <= 0 || this.stopped || this.kicked || lazy.wanted()) return;
      const kicked = new Promise<void>((resolve) => { this.kick = resolve; });
      await Promise.race([wakeSignal.wait(since, remaining, this.abort.signal), kicked]);
      this.kick = null;
      since = wakeSignal.version;
    }
  }

  private async run(): Promise<void> {
    const { handler, onCaughtUp } = this.options;
    const { wakeSignal, batchSize } = this.source;
    this.options.catchUpOnly?.onKick(() => {
      this.kicked = true;
      this.kick?.();
    });
    let after = this.options.after;
    // onCaughtUp fires when the head is reached, not on every idle poll.
    let caughtUpReported = false;
    let skipAskedAt: number | null = null;
    try {
      while (!this.stopped) {
        const version = wakeSignal.version;
        this.kicked = false;
        // A subscriber whose work committed inline reads only what lies beyond it; asked again only
        // once this process has appended or been told of an append (at rest a read finds nothing).
        const skipTo = this.options.catchUpOnly?.skipTo;
        if (skipTo !== undefined && version !== skipAskedAt) {
          skipAskedAt = version;
          const skip = await skipTo();
          if (skip != null && (after === null || skip > after)) after = skip;
          if (this.stopped) return;
        }
        const batch = await this.source.readAll({ after, maxCount: batchSize });
        if (batch.length > 0 && !this.stopped) await this.options.onBatch?.(batch);
        for (const event of batch) {
          if (this.stopped) return;
          await handler(event);
          after = event.position;
          caughtUpReported = false;
        }
        if (batch.length < batchSize && !this.stopped) {
          if (!caughtUpReported) onCaughtUp?.(after);
          caughtUpReported = true;
          await this.sleep(version);
        }
      }
    } catch (error) {
      this.abort.abort();
      if (this.options.onError) this.options.onError(error);
      else this.source.logger.error({ err: error }, 'event store subscription stopped on an error');
    }
  }
}
