import type { Logger } from 'pino';
import { type UnknownEventObserved, reportUnknownEvent } from '../instrumentation/channels.js';

/** At most this many distinct types are named in one follower's warnings; past it, one more line says so. */
const MAX_WARNED_TYPES = 50;

/**
 * An event of a type this version does not know (a rolling deploy) is counted (`hiring_unknown_events_total`)
 * and warned about once per type for the follower's life, not per event. Memory bounded by MAX_WARNED_TYPES.
 */
export class UnknownEventTypes {
  private readonly warned = new Set<string>();

  constructor(
    private readonly follower: UnknownEventObserved['follower'],
    private readonly logger: Logger | undefined,
    private readonly afterwards: string,
  ) {}

  skipped(event: { type: string; position: bigint }): void {
    reportUnknownEvent(this.follower, event.type);
    if (this.warned.has(event.type) || this.warned.size > MAX_WARNED_TYPES) return;
    this.warned.add(event.type);
    if (this.warned.size > MAX_WARNED_TYPES) {
      this.logger?.warn({ follower: this.follower }, 'more unknown event types than are named in warnings; the others are only counted');
      return;
    }
    this.logger?.warn(
      { follower: this.follower, type: event.type, position: event.position.toString() },
      `event type unknown to this version (written by a newer one?): skipped and counted; ${this.afterwards}`,
    );
  }
}
