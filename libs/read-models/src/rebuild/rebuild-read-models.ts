import { pino, type Logger } from 'pino';
import type { EventStore, RecordedEvent } from '#event-store';
import { rebuildCollectionName, type DocumentStore } from '../shared/document-store.port.js';
import { handles, type AnyProjection, type CollectionDefinition } from '../shared/projection.js';
import { asDomainEvent, type RecordedDomainEvent } from '../shared/recorded-domain-event.js';
import type { ProjectionTarget } from '../projection-runner/document-cache.js';
import { ReadAhead } from './read-ahead.js';
import { RebuildDocuments } from './rebuild-documents.js';

/** Batches read ahead of the one being evolved. */
const READ_AHEAD_BATCHES = 3;
/** Batches read after the indexes are built, written with the switch-over; later events are the live runner's. */
const LATE_BATCHES = 5;
/** Writes waiting or running at most; the next flush waits for the oldest. */
const WRITES_QUEUED = 2;
/**
 * Logs whose head is below this position get twins made with their indexes. Building the indexes
 * after the last load held up the end of a rebuild of 12k events by 25 ms (of 190), and one of 54k
 * was 10% faster without it; at 1.05M events both took the same time, but keeping the indexes up to
 * date cost the server 20% more CPU than building them.
 */
const INDEXED_TWINS_BELOW = 100_000;

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
  /** Changed documents held in memory before they are written (default 5 000). */
  flushDocuments?: number;
  /** Documents kept in memory between batches (default 100 000). */
  maxCachedDocuments?: number;
  /** Logs whose head is below this position are loaded into indexed twins (default 100 000); bigger ones get their indexes once loaded. */
  indexedTwinsBelow?: number;
  logger?: Logger;
}

/**
 * Rebuilds every read model from position 0 into `rm_<name>__rebuild` tables with `readAll` (not
 * the live subscription), then swaps them in. Only read-model tables are written: no side effect
 * runs here. A big log's twins are loaded without their indexes, which are built once loaded (a
 * small log's are made with them: see INDEXED_TWINS_BELOW). Then the switch-over swaps them in
 * and sets every checkpoint to the last position read (under the lock the live runner takes to
 * flush); the live runner then finds its checkpoint moved, drops its batch, and carries on from
 * there, so events appended meanwhile are not lost. No event-store read is pending while the
 * switch holds a connection, so a single-connection PGlite pool works.
 */
export const rebuildReadModels = async (options: RebuildOptions): Promise<RebuildProgress> => {
  const { eventStore, documentStore, projections } = options;
  const logger = (options.logger ?? pino({ level: process.env['LOG_LEVEL'] ?? 'info' })).child({ component: 'rebuild' });
  const batchSize = options.batchSize ?? 1_000;
  const flushDocuments = options.flushDocuments ?? 5_000;
  const documents = new RebuildDocuments(documentStore, options.maxCachedDocuments ?? 100_000);
  const rebuildTargets: ProjectionTarget[] = projections.map((projection) => ({ projection, collection: rebuildCollectionName(projection.name) }));
  const targetsByType = new Map<string, ProjectionTarget[]>();
  const targetsOf = (event: RecordedDomainEvent): ProjectionTarget[] => {
    let targets = targetsByType.get(event.type);
    if (targets === undefined) {
      targets = rebuildTargets.filter(({ projection }) => handles(projection, event.type));
      targetsByType.set(event.type, targets);
    }
    return targets;
  };

  const twins = (withIndexes: boolean): CollectionDefinition[] => rebuildTargets.map(({ projection, collection }) => ({
    name: collection, indexes: withIndexes ? projection.indexes : [], served: projection.served, announceChanges: projection.announceChanges,
  }));
  // Only the data of the events some projection handles is read: on PostgreSQL the others' is
  // neither turned into text nor sent and parsed (a sixth of the events of the bench's log).
  const types = [...new Set(projections.flatMap((projection) => projection.eventTypes))];
  const startedAt = Date.now();
  // Read ahead: the next batches are fetched while this one is evolved and written. The first
  // ones are read and evolved while the twin tables are made: only writes wait for them.
  let reader = new ReadAhead(eventStore, batchSize, READ_AHEAD_BATCHES, null, types);
  const headPosition = await eventStore.headPosition();
  const indexedTwins = headPosition === null || headPosition < BigInt(options.indexedTwinsBelow ?? INDEXED_TWINS_BELOW);
  const twinsMade = documentStore.prepare(twins(indexedTwins), { fresh: true });
  twinsMade.catch(() => undefined);
  let position: bigint | null = null;
  let eventsDone = 0;
  const report = (phase: RebuildProgress['phase']): RebuildProgress => {
    const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
    const covered = position === null ? 0 : Number(position);
    const remaining = headPosition === null || position === null ? null : Math.max(0, Number(headPosition - position));
    const etaSeconds = remaining === null || covered === 0 ? null : remaining / (covered / seconds);
    const current = { phase, eventsDone, position, headPosition, eventsPerSecond: eventsDone / seconds, etaSeconds };
    options.onProgress?.(current);
    return current;
  };

  // A batch read after a short one that turned out not to be the end of the log.
  let carried: RecordedEvent[] | null = null;
  // Writes queue up behind each other (a few at most) while the next batches are read and evolved:
  // the client and the database work at once, and one slow write does not stop the evolving.
  // Every write waits for the twin tables (a rebuild that writes nothing too, at the end); if they
  // could not be made, the rebuild fails with that.
  const pendingWrites: Promise<void>[] = [];
  let writing: Promise<void> = twinsMade;
  // Documents dropped from memory are all in the write made when they were dropped: reading one
  // back waits for that write, not for the writes queued since.
  let droppedWritten: Promise<void> = Promise.resolve();
  const writeChanges = (at: bigint): void => {
    const { changes, emptied } = documents.takeChanges();
    const previous = writing;
    // Rebuilt collections only: the store may write several at once, none waits for live writers.
    const load = documentStore.loadRebuilt?.bind(documentStore);
    writing = load === undefined
      ? previous.then(() => documentStore.applyBatch([], changes, at))
      : Promise.all([previous, twinsMade.then(() => load(changes, at))]).then(() => undefined);
    writing.catch(() => undefined);
    pendingWrites.push(writing);
    if (emptied) droppedWritten = writing;
  };
  /** Evolves one batch read from the log; the position after it. */
  const evolveBatch = async (events: readonly RecordedEvent[]): Promise<bigint | null> => {
    await documents.evolve(events.flatMap((event) => asDomainEvent(event) ?? []), targetsOf, () => droppedWritten);
    eventsDone += events.length;
    return events.at(-1)?.position ?? position;
  };
  for (;;) {
    const events = carried ?? (await reader.next());
    carried = null;
    position = await evolveBatch(events);
    // A short batch is the tail of the log as it was when read, which was ahead of the evolving:
    // the log is read once more now, and only a read that finds nothing more ends the rebuild (events
    // appended meanwhile are then the live runner's, after the switch-over).
    let tail = false;
    if (events.length < batchSize) {
      reader = new ReadAhead(eventStore, batchSize, READ_AHEAD_BATCHES, position, types);
      const more = await reader.next();
      if (more.length === 0) tail = true;
      else carried = more;
    }
    if ((tail || documents.changedDocuments >= flushDocuments) && position !== null) {
      // Writes apply in order (each after the one before), so a document written twice ends as written last.
      while (pendingWrites.length >= WRITES_QUEUED) await pendingWrites.shift();
      writeChanges(position);
    }
    if (tail) break;
    report('building');
  }
  await writing;
  report('switching');
  if (!indexedTwins) await documentStore.prepare(twins(true));
  // Events appended while the last writes ran and any indexes were built (a few batches at most)
  // are evolved now and written by the switch-over itself: the live runner gets as small a gap as possible.
  for (let batches = 0; batches < LATE_BATCHES; batches += 1) {
    const late = await eventStore.readAll({ after: position, maxCount: batchSize, dataOnly: true, dataOfTypes: types });
    position = await evolveBatch(late);
    if (late.length < batchSize) break;
  }
  await documentStore.promoteRebuild({ collections: projections, changes: documents.takeChanges().changes, checkpoint: position });
  const done = report('done');
  logger.info({ events: eventsDone, position: position?.toString() ?? null, seconds: (Date.now() - startedAt) / 1000 }, 'read models rebuilt');
  return done;
};
