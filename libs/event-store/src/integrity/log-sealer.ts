import type { Logger } from 'pino';
import type { EventStore } from '../event-store.port.js';
import { GENESIS_LINK, type StoredLink, linkHash } from './log-links.js';
import { EventsDigest, type LogSeal, type SealSigner } from './log-seal.js';
import type { SealStore } from './seal-store.js';

export interface LogSealerOptions {
  eventStore: EventStore;
  /** The seals, and the links beside them (SealStore.links). */
  seals: SealStore;
  /** HMAC key of the links (integrityKeys().linkKey). */
  linkKey: Buffer;
  signer: SealSigner;
  logger: Logger;
  /**
   * A seal follows the end of a burst of writes within this long (nothing new appended for that
   * long), and comes at least every `MAX_UNSEALED_INTERVALS` times this long under steady writes.
   */
  intervalMs: number;
}

/** How often the follower looks for new events to link: the window in which an event has no link. */
const LINK_INTERVAL_MS = 200;
/** Under writes that never pause, a seal still comes this many intervals after the oldest unsealed event. */
const MAX_UNSEALED_INTERVALS = 5;
/** Events linked before a progress line is logged (a first start on a long log links all of it). */
const PROGRESS_EVERY = 100_000;
const READ_BATCH_SIZE = 1000;

/**
 * Follows the log: links every event into the chain over the global order within ~LINK_INTERVAL_MS
 * of its append, and seals the linked events soon after each burst of writes and at stop. Several
 * processes may run one: links are facts computed from committed events (the same whoever computes
 * them), and a seal's sequence is its primary key: the loser of a race drops its seal.
 */
export class LogSealer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** When this process first saw linked events not yet sealed (null: all sealed). */
  private unsealedSince: number | null = null;
  /** When the newest linked position last moved, and where it is. */
  private lastGrowthAt = 0;
  private lastLinked: bigint | null = null;
  /** A round failed: the next one that succeeds says so once. */
  private failing = false;

  constructor(private readonly options: LogSealerOptions) {}

  start(): void {
    const tick = (): void => {
      this.running = this.round()
        .then(() => {
          if (this.failing) this.options.logger.info('linking and sealing the log resumed');
          this.failing = false;
        })
        .catch((error: unknown) => {
          if (!this.failing) this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'linking or sealing the log failed; retrying');
          this.failing = true;
        })
        .finally(() => { if (!this.stopped) this.timer = setTimeout(tick, Math.min(LINK_INTERVAL_MS, this.options.intervalMs)); });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Stops following, then links and seals everything appended so far (a clean shutdown's seal). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.sealPending().catch((error: unknown) =>
      this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'the seal at shutdown failed; the next start seals'));
  }

  /** One round of the follower: link what is new; seal when a burst has ended, or has gone on for long. */
  private async round(): Promise<void> {
    const linked = await this.linkPending();
    const now = Date.now();
    if (linked !== this.lastLinked) {
      this.lastLinked = linked;
      this.lastGrowthAt = now;
      this.unsealedSince ??= now;
    }
    if (this.unsealedSince === null) return;
    const quiet = now - this.lastGrowthAt >= this.options.intervalMs;
    const overdue = now - this.unsealedSince >= this.options.intervalMs * MAX_UNSEALED_INTERVALS;
    if (!quiet && !overdue) return;
    await this.sealPending();
    this.unsealedSince = null;
  }

  /** Links every event after the newest link; returns the newest linked position. */
  async linkPending(): Promise<bigint | null> {
    const { eventStore, linkKey } = this.options;
    const { links } = this.options.seals;
    let latest: StoredLink | null = await links.latest();
    let done = 0;
    for (;;) {
      const batch = await eventStore.readAll({ after: latest?.position ?? null, maxCount: READ_BATCH_SIZE });
      if (batch.length === 0) return latest?.position ?? null;
      const made: StoredLink[] = [];
      let previous = latest?.link ?? GENESIS_LINK;
      for (const event of batch) {
        previous = linkHash(linkKey, previous, event);
        made.push({ position: event.position, link: previous });
      }
      await links.add(made);
      latest = made.at(-1) ?? latest;
      const before = done;
      done += made.length;
      if (Math.floor(done / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) this.options.logger.info({ linked: done, position: latest?.position.toString() }, 'linking the log');
    }
  }

  /** Links, then seals every linked event after the latest seal; returns the latest seal (new or not), null on an empty log. */
  async sealPending(onProgress?: (done: number) => void): Promise<LogSeal | null> {
    const { eventStore, seals, signer } = this.options;
    const head = await this.linkPending();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const previous = await seals.latest();
      const digest = new EventsDigest();
      let after = previous === null ? null : BigInt(previous.toPosition);
      while (head !== null && (after === null || after < head)) {
        const batch = await eventStore.readAll({ after, maxCount: READ_BATCH_SIZE });
        if (batch.length === 0) break;
        for (const event of batch) {
          if (event.position > head) break;
          digest.add(event);
          after = event.position;
        }
        onProgress?.(digest.count);
      }
      if (digest.count === 0 || after === null) return previous;
      const [link] = await seals.links.range(after - 1n, after);
      const { digest: eventsDigest, count } = digest.take();
      const seal = signer.sign({
        sequence: (previous?.sequence ?? 0) + 1, afterPosition: previous?.toPosition ?? null, toPosition: after.toString(), eventCount: count,
        eventsDigest, previousSignature: previous?.signature ?? null, ...(link?.position === after ? { link: link.link } : {}), sealedAt: new Date().toISOString(),
      });
      if (await seals.add(seal)) return seal;
    }
    return seals.latest();
  }
}
