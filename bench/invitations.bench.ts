import pg from 'pg';
import { type AssessmentEvent, evolveAssessment, foldAssessment, initialAssessmentState } from '#domain';
import { type CpuWatch, watchPid, watchPostgresBackends, watchRedis } from './support/cpu.js';
import { CONCURRENCY, DATABASE_URL, MEASURE_SECONDS, WARMUP_SECONDS, logger, mapLimit, randomSuffix } from './support/log.js';
import { CredentialPool, type LoadResult, type RequestSpec, runLoad } from './support/load.js';
import { type Service, deleteRedisKeys, startPlainDesign, startStandalone } from './support/processes.js';
import { waitUntilQuiet } from './support/quiet.js';
import { type BenchRow, type HelloBaseline } from './support/results.js';
import { benchFirstAfterRestart } from './first-after-restart.bench.js';
import { benchInvitationGrowth } from './invitation-growth.bench.js';
import { invitationRows } from './invitation-rows.js';

/**
 * Keys made for the load: each serves 100 requests (the limit is 120 a minute per key, not
 * configurable); enough for concurrency 16 at up to 4,000 invitations/s (160 keys ran out at 1,450).
 */
const KEYS = Number(process.env.BENCH_INVITATION_KEYS ?? 500);
/** Keys kept for the one-at-a-time run, which the load before it must not use up. */
const SEQUENTIAL_KEYS = 30;
/** Assessments the second load spreads its invitations over. */
const SPREAD = 20;

interface Issued {
  id: string;
  key: string;
  secret: string;
}

/** Creates an assessment through the public API with the key given (`key:secret`); returns its id. */
export const createAssessment = async (service: Service, credential: string): Promise<string> => {
  const created = await fetch(`${service.baseUrl}/v1/assessments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench assessment', tests: ['numerical-reasoning', 'verbal-reasoning'] }),
  });
  const assessment = (await created.json()) as { data?: { id: string } };
  if (created.status !== 201 || !assessment.data) throw new Error(`creating the assessment failed: ${created.status} ${JSON.stringify(assessment)}`);
  return assessment.data.id;
};

export const call = async (service: Service, method: string, path: string, body?: unknown): Promise<{ status: number; data: any }> => {
  const response = await fetch(`${service.internalUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.internalToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} -> ${response.status} ${text}`);
  return { status: response.status, data: (JSON.parse(text) as { data: unknown }).data };
};

export interface InvitationRun {
  label: string;
  assessments: number;
  setupSeconds: number;
  load: LoadResult;
  sequential: LoadResult;
}

/** Workspace, keys and assessment through the service, then the load: one new address per request. */
const measureInvitations = async (service: Service, label: string, keyIds: string[], watches: CpuWatch[] = [], assessments = 1): Promise<InvitationRun> => {
  const cpu = [watchPid('server', service.process.pid), ...watches, watchRedis()];
  const setupStarted = performance.now();
  const workspace = await call(service, 'POST', '/internal/workspaces', { name: 'Bench invitations', freeAllowance: 0 });
  const workspaceId = String(workspace.data.id);
  await call(service, 'POST', `/internal/workspaces/${workspaceId}/verify`);
  const issued = await mapLimit(Array.from({ length: KEYS + SEQUENTIAL_KEYS }), 4, async () =>
    (await call(service, 'POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode: 'live' })).data as Issued);
  keyIds.push(...issued.map((key) => key.id));
  const credentials = issued.map((key) => `${key.key}:${key.secret}`);
  const assessmentIds: string[] = [];
  for (let index = 0; index < assessments; index += 1) assessmentIds.push(await createAssessment(service, credentials[0] ?? ''));
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  logger.info({ keys: issued.length, seconds: setupSeconds }, `invitations (${label}): workspace, ${issued.length} API keys and ${assessments} assessment(s) made through the service in ${setupSeconds.toFixed(1)}s`);

  // Skip the key the assessment creation used a place of.
  const pool = new CredentialPool(credentials.slice(1, KEYS));
  const sequentialPool = new CredentialPool(credentials.slice(KEYS));
  const run = randomSuffix();
  const invite = (index: number, from = pool): RequestSpec | null => {
    const authorization = from.next();
    if (authorization === null) return null;
    return {
      method: 'POST',
      path: `/v1/assessments/${assessmentIds[index % assessmentIds.length]}/invitations`,
      headers: { authorization },
      body: JSON.stringify({ candidates: [{ email: `bench-${run}-${index}@example.com`, firstName: 'Bench', surname: `Candidate ${index}` }] }),
    };
  };
  const check = (body: string) => body.includes('"invited":1');
  const load = await runLoad({
    name: `POST /v1/assessments/{id}/invitations (${label})`, baseUrl: service.baseUrl, concurrency: CONCURRENCY, seconds: MEASURE_SECONDS,
    warmupSeconds: WARMUP_SECONDS, request: invite, check, cpu,
  });
  // One request at a time: the latency of a single invitation, nothing queued in front of it (the
  // side effects and followers of the load above finish first).
  const quietAfter = await waitUntilQuiet(service);
  logger.info({ seconds: quietAfter }, `invitations (${label}): the load's side effects settled in ${quietAfter.toFixed(1)}s`);
  const sequential = await runLoad({
    name: `invitations one at a time (${label})`, baseUrl: service.baseUrl, concurrency: 1, seconds: Math.min(3, MEASURE_SECONDS), warmupSeconds: 0.5,
    request: (index) => invite(1_000_000 + index, sequentialPool), check, cpu,
  });
  return { label, assessments, setupSeconds, load, sequential };
};

/**
 * The plain design's invitations on the same database, in the same shape as measureInvitations's
 * load: one new address a request to one assessment, keys used 100 requests each.
 */
const measurePlainInvitations = async (databaseUrl: string, watches: CpuWatch[]): Promise<LoadResult> => {
  const schema = `plain_${randomSuffix()}`;
  const plain = await startPlainDesign(databaseUrl, schema);
  try {
    const run = randomSuffix();
    const keys = new CredentialPool(Array.from({ length: KEYS }, (_, index) => `plain_${run}_${index}:secret`));
    return await runLoad({
      name: 'plain design: POST /v1/assessments/{id}/invitations', baseUrl: plain.baseUrl, concurrency: CONCURRENCY, seconds: MEASURE_SECONDS, warmupSeconds: WARMUP_SECONDS,
      cpu: [watchPid('server', plain.process.pid), ...watches, watchRedis()],
      request: (index) => {
        const authorization = keys.next();
        return authorization === null ? null : {
          method: 'POST', path: `/v1/assessments/asm_plain_${run}/invitations`, headers: { authorization },
          body: JSON.stringify({ candidates: [{ email: `plain-${run}-${index}@example.com`, firstName: 'Bench', surname: `Candidate ${index}` }] }),
        };
      },
      check: (body) => body.includes('"invited":1'),
    });
  } finally {
    await plain.stop();
    await deleteRedisKeys([`plain:ratelimit:{plain_*`]).catch(() => 0);
  }
};

interface FoldCost {
  ms: number;
  cpuMs: number;
}

const FOLD_RUNS = 7;

/**
 * Median of FOLD_RUNS runs of `fold`, wall and CPU time (on a machine shared with other work the wall
 * time mostly measures waiting). The CPU time is the process's: it includes the young generation's
 * collections, run on helper threads, which land on some runs and not others (a median of 3 moved
 * between 29 and 56 ms for one fold).
 */
const foldCost = (fold: () => unknown): FoldCost => {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let repeat = 0; repeat < FOLD_RUNS; repeat += 1) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    fold();
    const used = process.cpuUsage(cpuBefore);
    times.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[FOLD_RUNS >> 1] ?? 0;
  return { ms: median(times), cpuMs: median(cpu) };
};

/**
 * What one decision spends folding the assessment stream when it loads it whole (StateCache.load runs
 * the fold's foldAll: foldAssessment, on transient tables), over AssessmentCreated + n CandidateInvited,
 * in this process; and the same events through evolveAssessment one at a time (`oneAtATime`: how a
 * decision's own new events are folded, never thousands in a row).
 */
export const foldCosts = (sizes: readonly number[]): (FoldCost & { size: number; oneAtATime: FoldCost })[] => {
  const created: AssessmentEvent = {
    type: 'AssessmentCreated',
    data: { assessmentId: 'asm_fold', workspaceId: 'ws_fold', name: 'Fold', tests: [], deadline: null, inviteToken: 'token', createdAt: new Date(0).toISOString() },
  };
  const invited = (index: number): AssessmentEvent => ({
    type: 'CandidateInvited',
    data: {
      assessmentId: 'asm_fold', workspaceId: 'ws_fold', assessmentName: 'Fold', deadline: null, invitationId: `inv_${index}`, invitationToken: `token${index}`,
      mode: 'live', email: `fold-${index}@example.com`, firstName: 'Fold', surname: `Candidate ${index}`, invitedAt: new Date(0).toISOString(),
    },
  });
  return sizes.map((size) => {
    const events = [created, ...Array.from({ length: size }, (_, index) => invited(index))];
    return {
      size,
      ...foldCost(() => foldAssessment(initialAssessmentState(), events)),
      oneAtATime: foldCost(() => events.reduce(evolveAssessment, initialAssessmentState())),
    };
  });
};

const databaseUrl = (name: string): string => {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * Invitations per second through the whole service as `npm start` runs it (embedded PGlite), one
 * new address per request to one assessment, against the Nest hello world with the same load. The
 * same service on the PostgreSQL server follows, to tell the store's share from the rest.
 */
export async function benchInvitations(hello: HelloBaseline): Promise<{ rows: BenchRow[]; details: string[] }> {
  const runs: InvitationRun[] = [];
  const keyIds: string[] = [];
  // The service's queue keys go with it (Service.stop); these are the rate-limit windows of the keys it used.
  const cleanRedis = async () => {
    const rateLimits = keyIds.flatMap((id) => [`ratelimit:{${id}}`, `ratelimit:{${id}}:seq`]);
    const deleted = await deleteRedisKeys(rateLimits).catch((error: unknown) => {
      logger.warn({ err: error }, 'invitations: cleaning Redis failed');
      return 0;
    });
    logger.info({ deleted }, `invitations: removed ${deleted} rate-limit keys`);
  };
  /** One service, then one assessment and 20 assessments, each with a workspace of its own. */
  const measureBoth = async (service: Service, label: string, watches: CpuWatch[] = []) => {
    try {
      runs.push(await measureInvitations(service, label, keyIds, watches));
      runs.push(await measureInvitations(service, label, keyIds, watches, SPREAD));
    } finally {
      await service.stop();
      await cleanRedis();
    }
  };

  logger.info('invitations: starting the standalone service (embedded PGlite, first start runs initdb)...');
  await measureBoth(await startStandalone(), 'embedded PGlite');
  const baseline = await hello.measure('invitations baseline: Nest hello world');
  const folds = foldCosts([250, 1_000, 3_000, 10_000]);

  let plain: LoadResult | null = null;
  if (process.env.BENCH_INVITATIONS_POSTGRES !== '0') {
    const database = `bench_${randomSuffix()}`;
    const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    admin.on('error', (error) => logger.debug({ err: error }, 'idle admin connection failed'));
    try {
      await admin.query(`CREATE DATABASE ${database}`);
      logger.info({ database }, 'invitations: starting the standalone service on the PostgreSQL server...');
      await measureBoth(await startStandalone({ EVENT_STORE_URL: databaseUrl(database) }), 'PostgreSQL server', [watchPostgresBackends(admin, { database })]);
      logger.info({ database }, 'invitations: the plain design on the same PostgreSQL server...');
      plain = await measurePlainInvitations(databaseUrl(database), [watchPostgresBackends(admin, { database })]);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error: unknown) => logger.warn({ err: error, database }, 'dropping the database failed'));
      await admin.end();
    }
  }
  const growth = process.env.BENCH_INVITATION_GROWTH === '0' ? null : await benchInvitationGrowth();
  const restarts = process.env.BENCH_INVITATION_GROWTH === '0' ? [] : [
    { label: 'embedded', result: await benchFirstAfterRestart('embedded') },
    ...(process.env.BENCH_INVITATIONS_POSTGRES === '0' ? [] : [{ label: 'PostgreSQL', result: await benchFirstAfterRestart('postgres') }]),
  ];
  return invitationRows({ runs, baseline, plain, folds, growth, restarts, keys: KEYS + SEQUENTIAL_KEYS });
}
