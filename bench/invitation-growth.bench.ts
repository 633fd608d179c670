import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { call, createAssessment } from './invitations.bench.js';
import { CONCURRENCY, REDIS_URL, logger, mapLimit, randomSuffix, round } from './support/log.js';
import { CredentialPool, runLoad } from './support/load.js';
import { type Service, sleep, startStandalone } from './support/processes.js';
import { redisPortsOf } from './support/redis-clients.js';

const BIG = Number(process.env.BENCH_BIG_ASSESSMENT ?? 3_000);

export interface Workspace {
  credentials: CredentialPool;
}

export const newWorkspace = async (service: Service, keys: number): Promise<Workspace> => {
  const workspace = await call(service, 'POST', '/internal/workspaces', { name: 'Bench growth', freeAllowance: 0 });
  const workspaceId = String(workspace.data.id);
  await call(service, 'POST', `/internal/workspaces/${workspaceId}/verify`);
  const issued = await mapLimit(Array.from({ length: keys }), 4, async () =>
    (await call(service, 'POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode: 'live' })).data as { key: string; secret: string });
  return { credentials: new CredentialPool(issued.map((key) => `${key.key}:${key.secret}`), 60) };
};

export const people = (run: string, from: number, count: number) =>
  Array.from({ length: count }, (_, index) => ({ email: `growth-${run}-${from + index}@example.com`, firstName: 'Bench', surname: `Person ${from + index}` }));

/** One invitation request; returns its latency in ms. */
export const invite = async (service: Service, workspace: Workspace, assessmentId: string, candidates: object[]): Promise<number> => {
  const authorization = workspace.credentials.next();
  if (authorization === null) throw new Error('no API key places left');
  const started = performance.now();
  const response = await fetch(`${service.baseUrl}/v1/assessments/${assessmentId}/invitations`, {
    method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ candidates }),
  });
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200 || !text.includes(`"invited":${candidates.length}`)) throw new Error(`invitation failed: ${response.status} ${text.slice(0, 300)}`);
  return elapsed;
};

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export interface GrowthResult {
  hundredPeopleP50Ms: number;
  hundredPeopleRequests: number;
  redisCommandsPerInvitation: number;
  details: string[];
}

/**
 * On the embedded store as `npm start` runs it: requests of 100 new people until an assessment holds
 * BIG invitations, then the Redis commands one invitation costs (MONITOR, counting only the
 * service's own connections). The first invitation after a restart: first-after-restart.bench.ts.
 */
export async function benchInvitationGrowth(): Promise<GrowthResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hiring-bench-growth-'));
  const run = randomSuffix();
  const details: string[] = [];
  try {
    const service = await startStandalone({}, { dataDir });
    const workspace = await newWorkspace(service, Math.ceil(BIG / 100 / 60) + 20);
    const firstKey = workspace.credentials.next()?.slice('Bearer '.length) ?? '';
    const big = await createAssessment(service, firstKey);
    const hundred: number[] = [];
    for (let from = 0; from < BIG; from += 100) hundred.push(await invite(service, workspace, big, people(run, from, 100)));
    details.push(`${hundred.length} requests of 100 new people each (one at a time): p50 ${round(median(hundred), 1)} ms, first ${round(hundred[0] ?? 0, 1)} ms, last ${round(hundred.at(-1) ?? 0, 1)} ms`);

    const perInvitation = await countRedisCommands(service, workspace, big, run);
    details.push(`Redis commands per invitation (MONITOR, the service's connections only, e-mail jobs included): ${perInvitation}`);
    await service.stop();
    return {
      hundredPeopleP50Ms: round(median(hundred), 1), hundredPeopleRequests: hundred.length, redisCommandsPerInvitation: perInvitation, details,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** 200 single invitations at the usual concurrency, then 3 s for the side effects to finish. */
const countRedisCommands = async (service: Service, workspace: Workspace, assessmentId: string, run: string): Promise<number> => {
  const invitations = 200;
  // A raw MONITOR connection: every command Redis runs, one `+<time> [<db> <client address>] "<command>" ...` line each.
  const url = new URL(REDIS_URL);
  const monitor = connect({ host: url.hostname, port: Number(url.port || 6379) });
  const lines: string[] = [];
  let partial = '';
  monitor.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const parts = text.split('\r\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      const source = /^\+\d+\.\d+ \[\d+ ([^\]]+)\]/.exec(line)?.[1];
      if (source) lines.push(source);
    }
  });
  monitor.on('error', (error) => logger.warn({ err: error }, 'MONITOR connection failed'));
  await new Promise<void>((resolve) => monitor.write('MONITOR\r\n', () => resolve()));
  await sleep(200);
  try {
    await runLoad({
      name: 'invitations counted on Redis', baseUrl: service.baseUrl, concurrency: CONCURRENCY, seconds: 60, warmupSeconds: 0,
      request: (index) => {
        if (index >= invitations) return null;
        const authorization = workspace.credentials.next();
        if (authorization === null) return null;
        return {
          method: 'POST', path: `/v1/assessments/${assessmentId}/invitations`, headers: { authorization },
          body: JSON.stringify({ candidates: people(`${run}-redis`, index, 1) }),
        };
      },
    });
    await sleep(3_000);
  } finally {
    monitor.destroy();
  }
  const ports = await redisPortsOf(service.process.pid);
  const ours = lines.filter((source) => ports.has(Number(source.split(':').at(-1))));
  logger.info({ monitored: lines.length, service: ours.length, ports: ports.size }, 'Redis commands counted');
  return round(ours.length / invitations, 1);
};
