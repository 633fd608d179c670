import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedEventStore } from '#event-store';
import { allProjections, createPostgresDocumentStore, rebuildReadModels } from '#read-models';
import { watchPid, watchRedis } from './support/cpu.js';
import { describeFeed } from './support/events-feed.js';
import { describeLoad } from './support/load.js';
import { logger } from './support/log.js';
import { deleteRedisKeys, sleep, startStandalone } from './support/processes.js';
import { loadReadEndpoints, readKeysNeeded } from './support/read-endpoints.js';
import type { BenchRow, HelloBaseline } from './support/results.js';
import { seedWorkspace } from './support/seed.js';

/**
 * The list endpoints on the embedded store, as `npm start` runs: a DATA_DIR is seeded and its read
 * models built in this process, then the whole service starts on it and is measured against the
 * Nest hello world of the same run.
 */
export async function benchEmbeddedReads(candidates: number, hello: HelloBaseline): Promise<{ rows: BenchRow[]; details: string[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'hiring-bench-reads-'));
  const apiKeyIds: string[] = [];
  try {
    const embedded = await createEmbeddedEventStore({ dataDir, logger });
    let seeded: Awaited<ReturnType<typeof seedWorkspace>>;
    try {
      const keys = readKeysNeeded(candidates);
      seeded = await seedWorkspace(embedded.store, { candidates, keys, label: `${candidates} candidates, embedded` });
      apiKeyIds.push(...seeded.apiKeyIds);
      const documents = createPostgresDocumentStore({ pool: embedded.database.pool, schema: 'public', deployment: 'single-process' });
      await documents.prepare(allProjections);
      await rebuildReadModels({ eventStore: embedded.store, documentStore: documents, projections: allProjections, logger });
      await documents.close();
    } finally {
      await embedded.stop();
    }
    const label = `${seeded.events} events, embedded`;
    const service = await startStandalone({ DATA_DIR: dataDir });
    let measured: Awaited<ReturnType<typeof loadReadEndpoints>>;
    try {
      // The dispatcher reads the seeded log once at start (nothing to send): let it finish first.
      await sleep(3_000);
      measured = await loadReadEndpoints({
        label, baseUrl: service.baseUrl, credentials: seeded.credentials, candidates, hello,
        cpu: [watchPid('server', service.process.pid), watchRedis()],
      });
    } finally {
      await service.stop();
    }
    return {
      rows: measured.rows,
      details: [
        `dataset: ${seeded.candidates} candidates, ${seeded.events} events in an embedded DATA_DIR; \`npm start\` (dist/apps/standalone) in front of it`,
        describeFeed(measured.feed, seeded.candidates),
        ...measured.loads.map((load) => `${load.name}: ${describeLoad(load)}`),
        `Nest hello world: ${describeLoad(measured.baseline)}`,
      ],
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(apiKeyIds.flatMap((id) => [`ratelimit:{${id}}`, `ratelimit:{${id}}:seq`])).catch((error: unknown) => logger.warn({ err: error }, 'cleaning Redis failed'));
  }
}
