import { pino, type Logger } from 'pino';
import type { EventStore } from '../../../event-store/src/event-store.port.js';
import { rebuildCollectionName, type DocumentStore } from '../shared/document-store.port.js';
import { handles, type AnyProjection } from '../shared/projection.js';
import { asDomainEvent, type RecordedDomainEvent } from '../shared/recorded-domain-event.js';
import { DocumentCache, type ProjectionTarget } from '../projection-runner/document-cache.js';

export interface RebuildProgress {
  phase: 'building' | 'switching' | 'done';
  eventsDone: number;
  position: bigint | null;
  /** Head of the log when the rebuild started: the finish line the ETA aims at. */
  headPosition: bigint | null;
  eventsPerSecond: number;
  /** Seconds left, from the pace through positions so far; null until it can be estimated. */
  etaSeconds: number | null;
}

export interface RebuildOptions {
  eventStore: EventStore;
  documentStore: DocumentStore;
  projections: readonly AnyProjection[];
  onProgress?: (progress: RebuildProgress) => void;
  /** Events per readAll and per write (default 1 000). */
  batchSize?: number;
  /** Documents kept in memory between batches (default 50 000). */
  maxCachedDocuments?: number;
  logger?: Logger;
}

/**
 * Rebuilds every read model from position 0 into `rm_<name>__rebuild` tables with `readAll` (not
 * the live subscription), then swaps them in. Only read-model tables are written: no side effect
 * runs here. The last batch is written in the switch-over itself (under the lock the live runner
 * takes to flush); the live runner then finds its checkpoint moved, drops its batch, and carries
 * on from the rebuilt position, so events appended during the switch are not lost. Event-store
 * reads never happen while the switch holds a connection, so a single-connection PGlite pool works.
 */
export const rebuildReadModels = async (options: RebuildOptions): Promise<RebuildProgress> => {
  const { eventStore, documentStore, projections } = options;
  const logger = (options.logger ?? pino({ level: process.env['LOG_LEVEL'] ?? 'info' })).child({ component: 'rebuild' });
  const batchSize = options.batchSize ?? 1_000;
  const cache = new DocumentCache(documentStore, options.maxCachedDocuments ?? 50_000);
  const rebuildTargets: ProjectionTarget[] = projections.map((projection) => ({ projection, collection: rebuildCollectionName(projection.name) }));
  const targetsOf = (event: RecordedDomainEvent): ProjectionTarget[] => rebuildTargets.filter(({ projection }) => handles(projection, event.type));

  await documentStore.prepare(
    rebuildTargets.map(({ projection, collection }) => ({
      name: collection, indexes: projection.indexes, served: projection.served, announceChanges: projection.announceChanges,
    })),
    { fresh: true },
  );
  const headPosition = await eventStore.headPosition();
  const startedAt = Date.now();
  let position: bigint | null = null;
  let eventsDone = 0;
  const progress = (phase: RebuildProgress['phase']): RebuildProgress => {
    const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
    const covered = position === null ? 0 : Number(position);
    const remaining = headPosition === null || position === null ? null : Math.max(0, Number(headPosition - position));
    const etaSeconds = remaining === null || covered === 0 ? null : remaining / (covered / seconds);
    return { phase, eventsDone, position, headPosition, eventsPerSecond: eventsDone / seconds, etaSeconds };
  };
  const report = (phase: RebuildProgress['phase']): RebuildProgress => {
    const current = progress(phase);
    options.onProgress?.(current);
    return current;
  };

  for (;;) {
    const events = await eventStore.readAll({ after: position, maxCount: batchSize });
    const domainEvents = events.flatMap((event) => asDomainEvent(event) ?? []);
    await cache.prefetch(domainEvents, targetsOf);
    for (const event of domainEvents) await cache.apply(event, targetsOf(event));
    position = events.at(-1)?.position ?? position;
    eventsDone += events.length;
    const changes = cache.takeChanges();
    // A short batch is the tail: it is written by the switch-over, in the same transaction.
    if (events.length < batchSize) {
      report('switching');
      await documentStore.promoteRebuild({ collections: projections, changes, checkpoint: position });
      break;
    }
    if (position !== null) await documentStore.applyBatch([], changes, position);
    report('building');
  }
  const done = report('done');
  logger.info({ events: eventsDone, position: position?.toString() ?? null, seconds: (Date.now() - startedAt) / 1000 }, 'read models rebuilt');
  return done;
};
