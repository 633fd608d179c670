import pg from 'pg';
import { type AssessmentEvent, evolveAssessment, initialAssessmentState } from '../libs/domain/src/index.js';
import { type CpuWatch, watchPid, watchPostgresBackends, watchRedis } from './support/cpu.js';
import { CONCURRENCY, DATABASE_URL, MEASURE_SECONDS, WARMUP_SECONDS, logger, mapLimit, randomSuffix } from './support/log.js';
import { CredentialPool, type LoadResult, type RequestSpec, describeLoad, runLoad } from './support/load.js';
import { type Service, deleteRedisKeys, startStandalone } from './support/processes.js';
import { type BenchRow, type HelloBaseline, httpCell } from './support/results.js';

/** Keys made for the load: each serves 100 requests (the limit is 120 a minute per key, not configurable). */
const KEYS = Number(process.env.BENCH_INVITATION_KEYS ?? 80);

interface Issued {
  id: string;
  key: string;
  secret: string;
}

const call = async (service: Service, method: string, path: string, body?: unknown): Promise<{ status: number; data: any }> => {
  const response = await fetch(`${service.internalUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.internalToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} -> ${response.status} ${text}`);
  return { status: response.status, data: (JSON.parse(text) as { data: unknown }).data };
};

interface InvitationRun {
  label: string;
  setupSeconds: number;
  load: LoadResult;
  sequential: LoadResult;
}

/** Workspace, keys and assessment through the service, then the load: one new address per request. */
const measureInvitations = async (service: Service, label: string, keyIds: string[], watches: CpuWatch[] = []): Promise<InvitationRun> => {
  const cpu = [watchPid('server', service.process.pid), ...watches, watchRedis()];
  const setupStarted = performance.now();
  const workspace = await call(service, 'POST', '/internal/workspaces', { name: 'Bench invitations', freeAllowance: 0 });
  const workspaceId = String(workspace.data.id);
  await call(service, 'POST', `/internal/workspaces/${workspaceId}/verify`);
  const issued = await mapLimit(Array.from({ length: KEYS }), 4, async () =>
    (await call(service, 'POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode: 'live' })).data as Issued);
  keyIds.push(...issued.map((key) => key.id));
  const credentials = issued.map((key) => `${key.key}:${key.secret}`);
  const created = await fetch(`${service.baseUrl}/v1/assessments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credentials[0]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench assessment', tests: ['numerical-reasoning', 'verbal-reasoning'] }),
  });
  const assessment = (await created.json()) as { data?: { id: string } };
  if (created.status !== 201 || !assessment.data) throw new Error(`creating the assessment failed: ${created.status} ${JSON.stringify(assessment)}`);
  const assessmentId = assessment.data.id;
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  logger.info({ keys: KEYS, seconds: setupSeconds }, `invitations (${label}): workspace, ${KEYS} API keys and an assessment made through the service in ${setupSeconds.toFixed(1)}s`);

  // Skip the key the assessment creation used a place of.
  const pool = new CredentialPool(credentials.slice(1));
  const run = randomSuffix();
  const invite = (index: number): RequestSpec | null => {
    const authorization = pool.next();
    if (authorization === null) return null;
    return {
      method: 'POST',
      path: `/v1/assessments/${assessmentId}/invitations`,
      headers: { authorization },
      body: JSON.stringify({ candidates: [{ email: `bench-${run}-${index}@example.com`, firstName: 'Bench', surname: `Candidate ${index}` }] }),
    };
  };
  const check = (body: string) => body.includes('"invited":1');
  const load = await runLoad({
    name: `POST /v1/assessments/{id}/invitations (${label})`, baseUrl: service.baseUrl, concurrency: CONCURRENCY, seconds: MEASURE_SECONDS,
    warmupSeconds: WARMUP_SECONDS, request: invite, check, cpu,
  });
  // One request at a time: the latency of a single invitation, nothing queued in front of it.
  const sequential = await runLoad({
    name: `invitations one at a time (${label})`, baseUrl: service.baseUrl, concurrency: 1, seconds: Math.min(3, MEASURE_SECONDS), warmupSeconds: 0.5,
    request: (index) => invite(1_000_000 + index), check, cpu,
  });
  return { label, setupSeconds, load, sequential };
};

/**
 * What one decision spends folding the assessment stream (every invitation decision loads it whole):
 * the domain's own evolveAssessment over AssessmentCreated + n CandidateInvited, in this process.
 */
const foldCosts = (sizes: readonly number[]): string[] => {
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
    const times: number[] = [];
    for (let repeat = 0; repeat < 3; repeat += 1) {
      const started = performance.now();
      events.reduce(evolveAssessment, initialAssessmentState());
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return `${size} invitations ${(times[1] ?? 0).toFixed(1)} ms`;
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
  const cleanRedis = async (service: Service) => {
    const rateLimits = keyIds.flatMap((id) => [`ratelimit:{${id}}`, `ratelimit:{${id}}:seq`]);
    const deleted = await deleteRedisKeys([`${service.queuePrefix}:*`, ...rateLimits]).catch((error: unknown) => {
      logger.warn({ err: error }, 'invitations: cleaning Redis failed');
      return 0;
    });
    logger.info({ deleted }, `invitations: removed ${deleted} Redis keys of the service`);
  };

  logger.info('invitations: starting the standalone service (embedded PGlite, first start runs initdb)...');
  const embedded = await startStandalone();
  try {
    runs.push(await measureInvitations(embedded, 'embedded PGlite', keyIds));
  } finally {
    await embedded.stop();
    await cleanRedis(embedded);
  }
  const baseline = await hello.measure('invitations baseline: Nest hello world');
  const folds = foldCosts([250, 500, 1_000, 2_000]);

  if (process.env.BENCH_INVITATIONS_POSTGRES !== '0') {
    const database = `bench_${randomSuffix()}`;
    const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    admin.on('error', (error) => logger.debug({ err: error }, 'idle admin connection failed'));
    try {
      await admin.query(`CREATE DATABASE ${database}`);
      logger.info({ database }, 'invitations: starting the standalone service on the PostgreSQL server...');
      const server = await startStandalone({ EVENT_STORE_URL: databaseUrl(database) });
      try {
        runs.push(await measureInvitations(server, 'PostgreSQL server', keyIds, [watchPostgresBackends(admin, { database })]));
      } finally {
        await server.stop();
        await cleanRedis(server);
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error: unknown) => logger.warn({ err: error, database }, 'dropping the database failed'));
      await admin.end();
    }
  }

  return {
    rows: runs.map((run) => ({
      name: `invitations, standalone on ${run.label} (1 address/request)`,
      measured: httpCell(run.load),
      baseline: httpCell(baseline, 'Nest hello'),
      ratio: run.load.perSecond / baseline.perSecond,
    })),
    details: [
      ...runs.flatMap((run) => [
        `${run.label}: set-up through the service (workspace + ${KEYS} keys + 1 assessment) ${run.setupSeconds.toFixed(1)}s`,
        `${run.label}: concurrency ${CONCURRENCY}: ${describeLoad(run.load)}`,
        `${run.label}: invitations completed in each second: ${run.load.perSecondTimeline.join(' ')}`,
        `${run.label}: one at a time:  ${describeLoad(run.sequential)}`,
      ]),
      `Nest hello world: ${describeLoad(baseline)}`,
      'all requests go to one assessment: its decisions are serialized (one per assessment at a time) and each reads the whole assessment stream',
      `folding an assessment stream (evolveAssessment, median of 3, in this process): ${folds.join(', ')}`,
    ],
  };
}
