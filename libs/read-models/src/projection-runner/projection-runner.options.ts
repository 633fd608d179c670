import type { Logger } from 'pino';
import type { EventStore } from '#event-store';
import type { DatabaseOutage } from '#platform';
import type { DocumentStore } from '../shared/document-store.port.js';
import type { AnyProjection } from '../shared/projection.js';

export interface ProjectionRunnerOptions {
  eventStore: EventStore;
  documentStore: DocumentStore;
  projections: readonly AnyProjection[];
  logger?: Logger;
  /** Flush after this many events (default 500). */
  batchSize?: number;
  /** Flush once no event has arrived for this long (default 5 ms): the caught-up signal, whatever the adapter reports. */
  idleFlushMs?: number;
  /** Never keep an event unwritten longer than this under a steady stream (default 100 ms). */
  maxFlushDelayMs?: number;
  /** First delay before resubscribing after a failure; doubles up to 30 s (default 1 000 ms). */
  retryDelayMs?: number;
  /** Subscribe from here instead of the lowest checkpoint. Events at or below a checkpoint are still skipped. */
  startAfter?: bigint | null;
  /** How often an idle runner compares the stored checkpoints with its own (default 1 000 ms). */
  checkpointCheckMs?: number;
  /**
   * Append transactions update the read models inline (createInlineReadModels): before each read
   * batch the runner, when it has nothing unwritten, takes up the stored checkpoints where they are
   * ahead of its own and skips what is already in. It then only catches up what inline work left
   * (a restart on an older log, a rebuild's switch-over, an append that ran without it).
   */
  followsInline?: boolean;
  /**
   * A failure that is the database being unreachable is not logged here (the outage is, once) and
   * does not back off: the runner follows again as soon as the database answers.
   */
  database?: DatabaseOutage;
  /**
   * The event types this version knows (default isKnownEventType). Any other type was written by a
   * newer version during a rolling deploy: skipped (the checkpoint moves past it), counted, warned
   * about once per type; the read models take it in at the rebuild that follows the deploy.
   */
  knownEventType?: (type: string) => boolean;
  /**
   * Work on the read models that no event asks for (the events feed's 30 days), run where the
   * projections run: once shortly after start, then every `everyMs`, never two at once. A failure
   * is logged and tried again at the next run.
   */
  housekeeping?: { everyMs: number; run: () => Promise<void> };
}
