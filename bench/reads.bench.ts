import { cpus } from 'node:os';
import pg from 'pg';
import { createPostgresEventStore } from '#event-store';
import { tableName } from '#read-models/document-store/postgres-sql.js';
import {
  allProjections, createPostgresDocumentStore, fillAppUrl, eventsProjection, feedCutoff, feedSeq, findApiKeyByKey, listServedCandidates, listServedEvents, listServedResults, pruneFeed, rebuildReadModels,
} from '#read-models';
import { type CpuShares, type CpuWatch, describeCpu, startCpuMeter, watchPid, watchPostgresBackends, watchRedis } from './support/cpu.js';
import { httpCpuCell } from './support/cpu-per-request.js';
import { CONCURRENCY, DATABASE_URL, MEASURE_SECONDS, WARMUP_SECONDS, logger, progress, randomSuffix, round } from './support/log.js';
import { describeFeed } from './support/events-feed.js';
import { explainQuery } from './support/explain.js';
import { CredentialPool, type LoadResult, describeLoad, getsWith, runLoad } from './support/load.js';
import { READ_PAGE_LIMIT, fullPageOf, loadReadEndpoints, readKeysNeeded } from './support/read-endpoints.js';
import { deleteRedisKeys, startApi, startPlainDesign } from './support/processes.js';
import type { BenchRow, HelloBaseline } from './support/results.js';
import { CANDIDATES_PER_APPEND, seedWorkspace } from './support/seed.js';

const READ_BATCH = 1_000;
/** Logs under this many events are measured in alternated passes (raw, rebuild, raw, ...). */
const PASSES_BELOW_EVENTS = 100_000;
const SMALL_LOG_PASSES = 5;

interface Pass {
  events: number;
  seconds: number;
  cpu: CpuShares;
  /** Time the bench process's main thread was busy (event loop utilization), ms. */
  busyMs: number;
}

const perSecond = (pass: Pass): number => pass.events / pass.seconds;

/** The pass of median speed (the lower middle one of an even count). */
const medianPass = (passes: readonly Pass[]): Pass => {
  const sorted = [...passes].sort((a, b) => perSecond(a) - perSecond(b));
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (middle === undefined) throw new Error('no pass measured');
  return middle;
};

const describePasses = (name: string, passes: readonly Pass[], median: Pass): string[] => {
  const line = (pass: Pass): string =>
    `${pass.events} events in ${pass.seconds.toFixed(2)}s, ${Math.round(perSecond(pass))} events/s; main thread busy ${Math.round(pass.busyMs)} ms`;
  if (passes.length === 1) return [`${name}: ${line(median)}`, `    ${describeCpu(median.cpu, cpus().length)}`];
  return [
    `${name}, median of ${passes.length} alternated passes: ${line(median)}`,
    `    ${describeCpu(median.cpu, cpus().length)}`,
    `    every pass, in order (the first one compiles the code): ${passes.map((pass) => `${Math.round(perSecond(pass))}`).join(', ')} events/s`,
  ];
};

const databaseUrl = (name: string): string => {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

const formatCount = (value: number): string => (value >= 1_000_000 ? `${round(value / 1_000_000, 2)}M` : value >= 1_000 ? `${round(value / 1_000, 1)}k` : String(value));

/** Alternated pairs of loads in the plain-design comparison: the service's results, then the plain design's. */
const PLAIN_PAIRS = 3;

interface PlainPair {
  service: LoadResult;
  plain: LoadResult;
}

const pairRatio = (pair: PlainPair): number => pair.service.perSecond / Math.max(pair.plain.perSecond, 0.001);

/**
 * `GET /v1/results` on the service (`api`, still running and warm) against the plain design's read on
 * the same database (one SELECT of READ_PAGE_LIMIT stored JSON rows in the list shape, from a table of
 * as many rows as the service's results: copies of the page it served), in PLAIN_PAIRS alternated pairs
 * of half windows, so that a drift of the shared machine meets both sides of a pair alike (one load a
 * minute after the other, the ratio of the same code ranged 0.61-1.12 in four runs). The service's keys
 * are those no load has used yet.
 */
const comparePlainResults = async (options: {
  url: string; page: readonly string[]; rowsWanted: number; api: { baseUrl: string; watches: CpuWatch[] }; credentials: CredentialPool; watches: CpuWatch[];
}): Promise<PlainPair[]> => {
  const schema = `plain_${randomSuffix()}`;
  const plain = await startPlainDesign(options.url, schema);
  const pool = new pg.Pool({ connectionString: options.url, max: 1 });
  pool.on('error', (error) => logger.debug({ err: error }, 'idle connection failed'));
  try {
    await pool.query(
      `INSERT INTO ${schema}.results (id, completed_at, doc)
       SELECT (r.doc->>'id') || '-' || g, (r.doc->>'completedAt')::timestamptz + g * interval '1 ms', r.doc
       FROM jsonb_array_elements($1::jsonb) AS r(doc) CROSS JOIN generate_series(0, $2::int) AS g`,
      [`[${options.page.join(',')}]`, Math.max(0, Math.ceil(options.rowsWanted / Math.max(1, options.page.length)) - 1)],
    );
    await pool.query(`ANALYZE ${schema}.results`);
    const keys = new CredentialPool(Array.from({ length: 100_000 }, (_, index) => `plain_${index}:secret`));
    const path = `/v1/results?limit=${READ_PAGE_LIMIT}`;
    const halfWindow = { concurrency: CONCURRENCY, seconds: MEASURE_SECONDS / 2, warmupSeconds: WARMUP_SECONDS / 2, check: fullPageOf(options.page.length) };
    const pairs: PlainPair[] = [];
    for (let pair = 1; pair <= PLAIN_PAIRS; pair += 1) {
      const ofPairs = `GET ${path} (pair ${pair} of ${PLAIN_PAIRS})`;
      const service = await runLoad({
        ...halfWindow, name: ofPairs, baseUrl: options.api.baseUrl, cpu: options.api.watches, request: getsWith(options.credentials, path),
      });
      const baseline = await runLoad({
        ...halfWindow, name: `plain design: ${ofPairs}`, baseUrl: plain.baseUrl, cpu: [watchPid('server', plain.process.pid), ...options.watches],
        request: getsWith(keys, path),
      });
      pairs.push({ service, plain: baseline });
    }
    return pairs;
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pool.end();
    await plain.stop();
  }
};

export interface ReadsResult {
  rows: BenchRow[];
  details: string[];
}

/**
 * Reads at scale: seeds a workspace of `candidates` candidates into a fresh PostgreSQL database,
 * reads the whole log raw (the baseline), rebuilds every read model from it, then puts the public
 * API in front of that database and measures two list endpoints against the Nest hello world.
 */
export async function benchReads(candidates: number, hello: HelloBaseline): Promise<ReadsResult> {
  const database = `bench_${randomSuffix()}`;
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
  admin.on('error', (error) => logger.debug({ err: error }, 'idle admin connection failed'));
  await admin.query(`CREATE DATABASE ${database}`);
  logger.info({ database, candidates }, `reads: database ${database} created for ${candidates} candidates`);
  const pool = new pg.Pool({ connectionString: databaseUrl(database), max: 4 });
  // pool.end() does not wait for sockets to close: DROP DATABASE … WITH (FORCE) may still terminate one.
  pool.on('error', (error) => logger.debug({ err: error }, 'idle connection failed'));
  const apiKeyIds: string[] = [];
  try {
    const store = await createPostgresEventStore({ pool, schema: 'public', listen: false, notify: false, logger });
    const keys = readKeysNeeded(candidates);
    const backends = [watchPostgresBackends(admin, { database })];
    const seedCpu = await startCpuMeter(backends, 'bench process');
    const seeded = await seedWorkspace(store, { candidates, keys, label: `${formatCount(candidates)} candidates` });
    const seedShares = await seedCpu();
    apiKeyIds.push(...seeded.apiKeyIds);
    const size = formatCount(seeded.events);
    const tableSize = (await pool.query<{ size: string }>(`SELECT pg_size_pretty(pg_total_relation_size('public.events')) AS size`)).rows[0]?.size ?? '?';
    await pool.query('VACUUM ANALYZE public.events');

    // Baseline of the rebuild: the same log read in the same batches, nothing projected or written.
    // A small log is read and rebuilt in alternated passes and the medians compared: one pass of a
    // few hundred milliseconds measures the JIT compiling the rebuild more than the rebuild.
    const passes = seeded.events < PASSES_BELOW_EVENTS ? SMALL_LOG_PASSES : 1;
    const documents = createPostgresDocumentStore({ pool, schema: 'public', deployment: 'multi-process' });
    await documents.prepare(allProjections);
    const rawPasses: Pass[] = [];
    const rebuildPasses: Pass[] = [];
    for (let pass = 1; pass <= passes; pass += 1) {
      const label = passes === 1 ? '' : ` (pass ${pass} of ${passes})`;
      const rawReport = progress(`raw readAll ${size} events${label}`, 'events', seeded.events);
      const rawCpu = await startCpuMeter(backends, 'bench process');
      const rawStarted = performance.now();
      const rawLoop = performance.eventLoopUtilization();
      let rawEvents = 0;
      for (let after: bigint | null = null; ;) {
        const batch = await store.readAll({ after, maxCount: READ_BATCH });
        rawEvents += batch.length;
        rawReport(rawEvents);
        if (batch.length < READ_BATCH) break;
        after = batch.at(-1)?.position ?? after;
      }
      rawReport(rawEvents, true);
      const rawBusyMs = performance.eventLoopUtilization(rawLoop).active;
      rawPasses.push({ events: rawEvents, seconds: (performance.now() - rawStarted) / 1000, cpu: await rawCpu(), busyMs: rawBusyMs });

      const rebuildReport = progress(`rebuild ${size} events${label}`, 'events', seeded.events);
      const rebuildCpu = await startCpuMeter(backends, 'bench process');
      const rebuildStarted = performance.now();
      const rebuildLoop = performance.eventLoopUtilization();
      const rebuilt = await rebuildReadModels({
        eventStore: store, documentStore: documents, projections: allProjections, logger: logger.child({ phase: 'rebuild' }),
        onProgress: (state) => rebuildReport(state.eventsDone),
      });
      rebuildReport(rebuilt.eventsDone, true);
      const rebuildBusyMs = performance.eventLoopUtilization(rebuildLoop).active;
      rebuildPasses.push({ events: rebuilt.eventsDone, seconds: (performance.now() - rebuildStarted) / 1000, cpu: await rebuildCpu(), busyMs: rebuildBusyMs });
    }
    const raw = medianPass(rawPasses);
    const rebuild = medianPass(rebuildPasses);
    const ofPasses = passes === 1 ? '' : `, median of ${passes}`;
    // As a running deployment holds it: where the projections run, the feed's rows older than 30 days
    // are deleted every hour (and 10 s after start); this API process runs no projections.
    const pruned = await pruneFeed(documents, feedCutoff(new Date().toISOString()));
    // Autovacuum does this on a server after a prune of a fifth of a table; the bench does not wait for it.
    await pool.query(`VACUUM ${tableName(eventsProjection.name)}`);
    await pool.query('ANALYZE');
    const readModelSize = (await pool.query<{ size: string }>(
      `SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS size FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname LIKE 'rm\\_%'`,
    )).rows[0]?.size ?? '?';
    const [firstKey] = seeded.credentials[0]?.split(':') ?? [];
    const scope = { workspaceId: seeded.workspaceId, mode: 'live' as const, limit: READ_PAGE_LIMIT };
    // As the controller asks: rows of the last 30 days; the middle of the log stands for a cursor there.
    const feedScope = { ...scope, since: feedCutoff(new Date().toISOString()) };
    const middle = [feedSeq((await store.headPosition() ?? 0n) / 2n), ''];
    const plans = [
      `API key lookup (first request of a key in a process, then cached): ${await explainQuery(pool, (docs) => findApiKeyByKey(docs, firstKey ?? ''))}`,
      `results page query: ${await explainQuery(pool, (docs) => listServedResults(docs, scope))}`,
      `candidates page query: ${await explainQuery(pool, (docs) => listServedCandidates(docs, scope))}`,
      `events first page query: ${await explainQuery(pool, (docs) => listServedEvents(docs, feedScope))}`,
      `events page query after a place in the middle of the log: ${await explainQuery(pool, (docs) => listServedEvents(docs, { ...feedScope, after: middle }))}`,
    ];
    // The plain design's rows: the first page the service serves, as it serves it.
    const servedPage = (await listServedResults(documents, scope)).rows.map((row) => fillAppUrl(row, 'http://127.0.0.1:3000'));
    await store.close();

    logger.info(`reads ${size}: starting the public API on ${database}...`);
    const api = await startApi(databaseUrl(database));
    const apiWatches = [watchPid('server', api.process.pid), watchPostgresBackends(admin, { database }), watchRedis()];
    let measured: Awaited<ReturnType<typeof loadReadEndpoints>>;
    let pairs: PlainPair[];
    try {
      measured = await loadReadEndpoints({ label: `${size} events`, baseUrl: api.baseUrl, credentials: seeded.credentials, candidates, hello, cpu: apiWatches });
      pairs = await comparePlainResults({
        url: databaseUrl(database), page: servedPage, rowsWanted: candidates, api: { baseUrl: api.baseUrl, watches: apiWatches },
        credentials: new CredentialPool(measured.spareCredentials), watches: [watchPostgresBackends(admin, { database })],
      });
    } finally {
      await api.stop();
    }
    const { loads, baseline } = measured;
    const rows: BenchRow[] = [...measured.rows];
    const medianPair = [...pairs].sort((a, b) => pairRatio(a) - pairRatio(b))[Math.floor((pairs.length - 1) / 2)];
    if (medianPair) {
      rows.push({
        name: `GET /v1/results?limit=${READ_PAGE_LIMIT} @ ${size} events, against the plain design's SELECT (target ≥ 1)`,
        measured: `${httpCpuCell(medianPair.service)}, median of ${pairs.length} alternated pairs`, baseline: httpCpuCell(medianPair.plain, 'plain design'), ratio: pairRatio(medianPair),
      });
    }
    rows.push({
      name: `rebuild read models @ ${size} events`,
      measured: `${Math.round(perSecond(rebuild))} events/s${ofPasses}`,
      baseline: `${Math.round(perSecond(raw))} events/s (raw readAll${ofPasses})`,
      ratio: perSecond(rebuild) / perSecond(raw),
    });
    const details = [
      `dataset: ${seeded.candidates} candidates on ${seeded.assessments} assessment(s), ${seeded.events} events, ${seeded.credentials.length} API keys; ` +
        `events table ${tableSize}, read models ${readModelSize}; events feed rows older than 30 days pruned before the loads: ${pruned}`,
      `seeding: ${Math.round(seeded.eventsPerSecond)} events/s (${seeded.seconds.toFixed(1)}s, appendToStreams of ${CANDIDATES_PER_APPEND} candidates = ${2 * CANDIDATES_PER_APPEND + 2} streams per append, 2 in flight)`,
      `    ${describeCpu(seedShares, cpus().length)}`,
      ...describePasses(`raw readAll (batches of ${READ_BATCH})`, rawPasses, raw),
      ...describePasses('rebuildReadModels', rebuildPasses, rebuild),
      ...plans,
      describeFeed(measured.feed, seeded.candidates),
      ...loads.map((load) => `${load.name}: ${describeLoad(load)}`),
      `Nest hello world: ${describeLoad(baseline)}`,
      `against the plain design (node:http + pg: one SELECT of ${READ_PAGE_LIMIT} stored JSON rows, ${Math.max(candidates, READ_PAGE_LIMIT)} rows in its table), ` +
        `${pairs.length} alternated pairs of ${MEASURE_SECONDS / 2}s loads, ratios ${pairs.map((pair) => round(pairRatio(pair), 2)).join(', ')}:`,
      ...pairs.flatMap((pair) => [`  ${pair.service.name}: ${describeLoad(pair.service)}`, `  ${pair.plain.name}: ${describeLoad(pair.plain)}`]),
    ];
    return { rows, details };
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error: unknown) => logger.warn({ err: error, database }, 'dropping the database failed'));
    await admin.end();
    await deleteRedisKeys(apiKeyIds.flatMap((id) => [`ratelimit:{${id}}`, `ratelimit:{${id}}:seq`])).catch((error: unknown) => logger.warn({ err: error }, 'cleaning Redis failed'));
    logger.info({ database }, `reads: database ${database} dropped`);
  }
}
