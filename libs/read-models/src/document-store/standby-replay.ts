import type pg from 'pg';
import { parseLsn } from '#platform';

/** A standby that did not answer (a connection, a check) within the bound: it may be frozen or gone. */
export class StandbyTimeout extends Error {
  constructor(what: string) {
    super(`the read replica did not answer ${what} in time`);
    this.name = 'StandbyTimeout';
  }
}

export interface Replay {
  /** `ready`: replayed up to the target; `behind`: not within the bound; `not_standby`: the host is not in recovery (promoted, or the primary). */
  state: 'ready' | 'behind' | 'not_standby';
  /** Whether it was polled again after a first check found it behind. */
  waited: boolean;
  /** Bytes it had still to replay at the first check (0: none); null when the connection's known position sufficed or it is not a standby. */
  lagBytes: number | null;
}

/** A check is given at least this long, even late in a GET's wait: a slow answer is not a dead host. */
const MIN_CHECK_MS = 100;
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 16;

const REPLAY_SQL = 'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed';

const pause = (ms: number): Promise<void> => new Promise((resolveLater) => setTimeout(resolveLater, ms));

/** The promise's value, or StandbyTimeout once `until` (performance.now()) has passed; `late` gets a value that arrives after. */
const before = <T>(work: Promise<T>, until: number, what: string, late?: (value: T) => void): Promise<T> =>
  new Promise<T>((resolveWork, rejectWork) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      rejectWork(new StandbyTimeout(what));
    }, Math.max(0, until - performance.now()));
    work.then(
      (value) => {
        clearTimeout(timer);
        if (timedOut) late?.(value);
        else resolveWork(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!timedOut) rejectWork(error);
      },
    );
  });

/**
 * How far a standby connection has replayed the primary's WAL, asked on that connection
 * (`pg_last_wal_replay_lsn()`), polled with growing pauses (1 to 16 ms) until the target or the
 * deadline. PostgreSQL 15 has no function that waits for a position, so this polls.
 *
 * Invariant of `known` (a cache: per pooled connection, the position it was last seen to have
 * replayed): a server's replay only moves forward while it runs, and a connection lives no longer
 * than its server process (a restart ends it); promoted, the server serves everything it replayed and
 * more. So a position seen on a connection is still covered by any later read on it. Kept current by
 * every check; bounded by the pool's connections (a WeakMap: a closed connection's entry goes with it).
 */
export class StandbyReplay {
  private readonly known = new WeakMap<pg.PoolClient, bigint>();

  /** A connection of the standby's pool, or StandbyTimeout at the deadline (one arriving later goes back to the pool). */
  connect(pool: pg.Pool, deadline: number): Promise<pg.PoolClient> {
    return before(pool.connect(), Math.max(deadline, performance.now() + MIN_CHECK_MS), 'a connection', (late) => late.release());
  }

  async until(client: pg.PoolClient, target: bigint, deadline: number): Promise<Replay> {
    const known = this.known.get(client);
    if (known !== undefined && known >= target) return { state: 'ready', waited: false, lagBytes: null };
    let lagBytes: number | null = null;
    let pauseMs = FIRST_PAUSE_MS;
    for (let checks = 0; ; checks += 1) {
      const { rows } = await before(client.query<{ standby: boolean; replayed: string | null }>(REPLAY_SQL), Math.max(deadline, performance.now() + MIN_CHECK_MS), 'its replay check');
      const row = rows[0];
      if (row?.standby !== true) return { state: 'not_standby', waited: checks > 0, lagBytes: null };
      // Null only before a standby replayed anything since it started: behind any target.
      const replayed = row.replayed === null ? 0n : parseLsn(row.replayed);
      this.known.set(client, replayed);
      lagBytes ??= target > replayed ? Number(target - replayed) : 0;
      if (replayed >= target) return { state: 'ready', waited: checks > 0, lagBytes };
      const left = deadline - performance.now();
      if (left <= 0) return { state: 'behind', waited: checks > 0, lagBytes };
      // The last pause ends at the deadline: one more check then.
      await pause(Math.min(pauseMs, left));
      pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
    }
  }
}
