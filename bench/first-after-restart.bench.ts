import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedDatabase } from '#event-store';
import { invite, newWorkspace, people } from './invitation-growth.bench.js';
import { createAssessment } from './invitations.bench.js';
import { DATABASE_URL, logger, randomSuffix, round } from './support/log.js';
import { type Service, startStandalone } from './support/processes.js';

const BIG = Number(process.env.BENCH_BIG_ASSESSMENT ?? 3_000);
/** Restarts measured for each kind of first invitation (3 let two slow ones of a noisy machine make the median). */
const RESTARTS = 5;

export interface FirstAfterRestart {
  /** Medians, ms: the assessment of BIG invitations with its snapshot, with state_snapshots emptied, and one of 1 invitation. */
  bigMs: number;
  bigWithoutSnapshotMs: number;
  smallMs: number;
  /** Median of invitations 4 to 6 to the small assessment after the same restarts: warm. */
  warmMs: number;
  details: string[];
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Where the service keeps its data between restarts, and how its snapshots are emptied while it is stopped. */
interface Deployment {
  label: string;
  start(): Promise<Service>;
  emptySnapshots(): Promise<void>;
  remove(): Promise<void>;
}

const embedded = (): Deployment => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hiring-bench-restart-'));
  return {
    label: 'embedded',
    start: () => startStandalone({}, { dataDir }),
    async emptySnapshots() {
      const database = await startEmbeddedDatabase({ dataDir, logger });
      try {
        await database.pool.query('TRUNCATE state_snapshots');
      } finally {
        await database.stop();
      }
    },
    async remove() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

const postgres = async (): Promise<Deployment> => {
  const name = `bench_${randomSuffix()}`;
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
  admin.on('error', (error) => logger.debug({ err: error }, 'idle admin connection failed'));
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  // The service secret is generated into DATA_DIR: the same one after each restart.
  const dataDir = mkdtempSync(join(tmpdir(), 'hiring-bench-restart-'));
  return {
    label: 'PostgreSQL',
    start: () => startStandalone({ EVENT_STORE_URL: url.toString() }, { dataDir }),
    async emptySnapshots() {
      const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
      try {
        await pool.query('TRUNCATE state_snapshots');
      } finally {
        await pool.end();
      }
    },
    async remove() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((error: unknown) => logger.warn({ err: error, name }, 'dropping the database failed'));
      await admin.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/**
 * The first invitation after a restart of the standalone service: to an assessment of BIG
 * invitations (made 100 per request), with its snapshot and with state_snapshots emptied while the
 * service was stopped (what an erasure anywhere in the workspace, a codec change or a lost write
 * leaves: the whole stream folded), and to an assessment of one invitation. Each sample follows a
 * restart of its own (nothing inherited from a warm process), the three kinds alternated, medians
 * compared: one cold request is one sample of a noisy machine.
 */
export async function benchFirstAfterRestart(where: 'embedded' | 'postgres'): Promise<FirstAfterRestart> {
  const deployment = where === 'embedded' ? embedded() : await postgres();
  const run = randomSuffix();
  let service: Service | null = null;
  try {
    service = await deployment.start();
    const workspace = await newWorkspace(service, Math.ceil(BIG / 100 / 60) + 10);
    const firstKey = workspace.credentials.next()?.slice('Bearer '.length) ?? '';
    const big = await createAssessment(service, firstKey);
    const small = await createAssessment(service, firstKey);
    for (let from = 0; from < BIG; from += 100) await invite(service, workspace, big, people(run, from, 100));
    await invite(service, workspace, small, people(run, 1_000_000, 1));

    const samples = { big: [] as number[], bigWithoutSnapshot: [] as number[], small: [] as number[], warm: [] as number[] };
    let person = 2_000_000;
    const afterRestart = async (assessmentId: string, emptySnapshots: boolean): Promise<number> => {
      await service?.stop();
      service = null;
      if (emptySnapshots) await deployment.emptySnapshots();
      const restarted = await deployment.start();
      service = restarted;
      return invite(restarted, workspace, assessmentId, people(run, person++, 1));
    };
    for (let restart = 0; restart < RESTARTS; restart += 1) {
      samples.big.push(await afterRestart(big, false));
      samples.small.push(await afterRestart(small, false));
      // The same process, warm: its fourth to sixth invitation (the second and third still compile code).
      for (let request = 2; request <= 6; request += 1) {
        const ms = await invite(service as Service, workspace, small, people(run, person++, 1));
        if (request >= 4) samples.warm.push(ms);
      }
      samples.bigWithoutSnapshot.push(await afterRestart(big, true));
    }
    const listed = (values: number[]): string => values.map((value) => round(value, 1)).join(', ');
    const result = {
      bigMs: round(median(samples.big), 1), bigWithoutSnapshotMs: round(median(samples.bigWithoutSnapshot), 1), smallMs: round(median(samples.small), 1),
      warmMs: round(median(samples.warm), 1),
    };
    return {
      ...result,
      details: [`${deployment.label}: first invitation after a restart (median of ${RESTARTS} restarts each): to the assessment holding ${BIG} invitations ${result.bigMs} ms (${listed(samples.big)}), the same with state_snapshots emptied ${result.bigWithoutSnapshotMs} ms (${listed(samples.bigWithoutSnapshot)}), to one holding 1 invitation ${result.smallMs} ms (${listed(samples.small)}); warm (the 4th to 6th invitation after each of those restarts) ${result.warmMs} ms (${listed(samples.warm)})`],
    };
  } finally {
    await service?.stop();
    await deployment.remove();
  }
}
