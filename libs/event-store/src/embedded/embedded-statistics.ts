import type pg from 'pg';
import type { Logger } from 'pino';

/** Growth of the log below which the statistics are not refreshed, whatever the share. */
const MIN_EVENTS = 1_000n;

/**
 * PGlite runs no autovacuum, so nothing runs ANALYZE, and a generic plan cached while the tables were
 * empty is kept for the connection's life (the person-key lookup scanned: 2.6 ms per invitation at 11k
 * keys). This analyzes the database once the log has grown by a tenth (and by MIN_EVENTS) since the
 * last time, which refreshes the statistics and has every cached plan made again. The sample is small
 * (statistics target 10) because PGlite answers nothing else meanwhile.
 */
export class EmbeddedStatistics {
  private timer: NodeJS.Timeout | null = null;
  private analyzedAt = 0n;
  private running: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly headPosition: () => Promise<bigint | null>,
    private readonly options: { intervalMs?: number; logger?: Logger } = {},
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.running ??= this.refreshIfGrown().finally(() => {
        this.running = null;
      });
    }, this.options.intervalMs ?? 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Analyzes when the log has grown enough since the last time; never rejects. */
  private async refreshIfGrown(): Promise<void> {
    try {
      const head = (await this.headPosition()) ?? 0n;
      const grown = head - this.analyzedAt;
      if (grown < MIN_EVENTS || grown * 10n < this.analyzedAt) return;
      const started = performance.now();
      // One simple query is one implicit transaction: if ANALYZE fails, the SET is undone with it.
      await this.pool.query('SET default_statistics_target = 10; ANALYZE; RESET default_statistics_target');
      this.analyzedAt = head;
      this.options.logger?.info({ head: head.toString(), ms: Math.round(performance.now() - started) }, 'embedded database: statistics refreshed (ANALYZE)');
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'embedded database: refreshing statistics failed; plans keep their old estimates until the next try');
    }
  }
}
