import type { Infrastructure } from '../infrastructure.js';
import type { ReadSideLag } from './read-side-lag.js';

/** Each dependency must answer within this for the process to be ready (a probe answers within about a second). */
export const READINESS_TIMEOUT_MS = 1_000;
/** The read side is caught up while no read model's oldest unhandled event is older than this. */
export const READY_MAX_LAG_SECONDS = 30;

export interface ReadinessReport {
  ready: boolean;
  database: boolean;
  redis: boolean;
  readSide: boolean;
}

/** The promise's value, or a rejection once `ms` have passed (the work itself is left to finish). */
export const within = <T>(work: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolveWork, rejectWork) => {
    const timer = setTimeout(() => rejectWork(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
    work.then(
      (value) => { clearTimeout(timer); resolveWork(value); },
      (error: unknown) => { clearTimeout(timer); rejectWork(error); },
    );
  });

const answers = (work: Promise<unknown>): Promise<boolean> => within(work, READINESS_TIMEOUT_MS).then(() => true, () => false);

/**
 * Ready: the SQL database answers `SELECT 1`, Redis answers PING, and every read model is close to the head of
 * the log. Probes arriving while a check runs share it: a flood of probes costs one check at a time.
 */
export class Readiness {
  private running: Promise<ReadinessReport> | null = null;

  constructor(private readonly infra: Infrastructure, private readonly lag: () => Promise<ReadSideLag>) {}

  check(): Promise<ReadinessReport> {
    this.running ??= this.run().finally(() => { this.running = null; });
    return this.running;
  }

  private async run(): Promise<ReadinessReport> {
    const [database, redis, readSide] = await Promise.all([
      // Known down (its watcher probes every second): not ready without adding a probe of its own.
      this.infra.database.isUp ? answers(this.infra.sidePool.query('SELECT 1')) : Promise.resolve(false),
      this.infra.redisHealth.isUp ? answers(this.infra.redis.ping()) : Promise.resolve(false),
      within(this.lag(), READINESS_TIMEOUT_MS).then(
        (lag) => [...lag.projections.values()].every((projection) => projection.seconds <= READY_MAX_LAG_SECONDS),
        () => false,
      ),
    ]);
    return { ready: database && redis && readSide, database, redis, readSide };
  }
}
