import type { Logger } from 'pino';
import type { EventStore, InlineProjector } from '#event-store';
import type { Clock, DatabaseOutage, Deployment } from '#platform';
import { allProjectionNames, allProjections } from './all-projections.js';
import { getApiKey } from './api-keys/api-keys.queries.js';
import { listAssessmentIds } from './assessments/assessments.queries.js';
import { feedCutoff, pruneFeed } from './events/events.queries.js';
import { createInlineReadModels, INLINE_READ_MODELS } from './inline/inline-read-models.js';
import { CheckpointWaiter } from './projection-runner/checkpoint-waiter.js';
import { ProjectionRunner } from './projection-runner/projection-runner.js';
import type { ResultDocument } from './results/results.projection.js';
import type { DocumentStore } from './shared/document-store.port.js';

/*
 * The read side builds its own parts: the composition root chooses the document store and the
 * deployment and calls these. A new read model is its folder and one line in all-projections.ts;
 * nothing here or in the composition root changes.
 */

/** How often the events feed drops rows past its 30 days (they are no longer listed before that either). */
const FEED_PRUNE_EVERY_MS = 60 * 60 * 1000;

/** A write as the read side sees it when asked to wait for it (the write side's CommittedWrite). */
export interface WriteToWaitFor {
  /** The inline projectors whose work committed with the events. */
  inline: readonly string[];
}

/** Read-your-writes on the read models: at once when the write updated them inline. */
export interface ReadModelsWaiter {
  waitForPosition(position: bigint, timeoutMs: number, write?: WriteToWaitFor): Promise<boolean>;
}

/** Makes the document store's tables and indexes for every read model. */
export const prepareReadModels = (documents: DocumentStore): Promise<void> => documents.prepare(allProjections);

/** The read models' projector for append transactions, where the log and the read models are one SQL database. */
export const inlineReadModels = (documents: DocumentStore, deployment: Deployment): InlineProjector =>
  createInlineReadModels({ schema: 'public', projections: allProjections, announce: (collections) => documents.announce?.(collections), deployment });

export interface ReadModelsDeps {
  documents: DocumentStore;
  eventStore: EventStore;
  logger: Logger;
  clock: Clock;
  database: DatabaseOutage;
}

export type ReadModels = ReturnType<typeof readModels>;

/** The read side's parts on a prepared document store. */
export const readModels = (deps: ReadModelsDeps) => {
  const { documents, logger, clock } = deps;
  const unlessInline = (reader: ReadModelsWaiter): ReadModelsWaiter => ({
    waitForPosition: (position, timeoutMs, write) =>
      write?.inline.includes(INLINE_READ_MODELS) === true ? Promise.resolve(true) : reader.waitForPosition(position, timeoutMs, write),
  });
  // The events feed's rows older than 30 days go where the projections run, every hour.
  const housekeeping = {
    everyMs: FEED_PRUNE_EVERY_MS,
    run: async () => {
      const pruned = await pruneFeed(documents, feedCutoff(await clock.now()));
      if (pruned > 0) logger.info({ pruned }, 'events feed: rows older than 30 days deleted');
    },
  };
  return {
    /** The catch-up projections (with the feed's hourly prune); `followsInline` where the inline projector runs. */
    newRunner: ({ followsInline }: { followsInline: boolean }): ProjectionRunner => new ProjectionRunner({
      eventStore: deps.eventStore, documentStore: documents, projections: allProjections, logger, followsInline, database: deps.database, housekeeping,
    }),
    /** Read-your-writes through a runner of this process. */
    waiterOn: (runner: ProjectionRunner): ReadModelsWaiter => unlessInline(runner),
    /** Read-your-writes through the checkpoints that another process's runner stores. */
    storedCheckpointsWaiter: (): ReadModelsWaiter => unlessInline(new CheckpointWaiter(documents, allProjectionNames)),
    /** The id look-ups the write side makes on the read models. */
    lookups: {
      workspaceOfApiKey: async (apiKeyId: string): Promise<string | null> => (await getApiKey(documents, apiKeyId))?.workspaceId ?? null,
      candidateOfResult: async (resultId: string): Promise<string | null> =>
        (await documents.get<ResultDocument>('results', resultId))?.candidateId ?? null,
      assessmentsOfWorkspace: (workspaceId: string): Promise<string[]> => listAssessmentIds(documents, workspaceId),
    },
  };
};
