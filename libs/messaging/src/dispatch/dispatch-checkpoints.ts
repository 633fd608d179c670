import type { Pool } from 'pg';
import { qualified } from '../shared/sql.js';
import { type CheckpointFence, FencedOutError, fenceHolds } from './checkpoint-fence.js';

export const CHECKPOINTS_TABLE = 'dispatch_checkpoints';

/**
 * The dispatcher's own checkpoint, apart from the read models' so that rebuilding a read model
 * never sends an e-mail or a webhook again.
 */
export class DispatchCheckpoints {
  private readonly table: string;

  constructor(private readonly pool: Pool, schema: string) {
    this.table = qualified(schema, CHECKPOINTS_TABLE);
  }

  async read(name: string): Promise<bigint | null> {
    const result = await this.pool.query(`SELECT position::text AS position FROM ${this.table} WHERE name = $1`, [name]);
    const row = result.rows[0] as { position: string } | undefined;
    return row ? BigInt(row.position) : null;
  }

  /**
   * Only ever forward: a slow second process cannot move the checkpoint back. With a fence (a leased
   * dispatcher), only while its lease is still held: a holder that lost it (frozen past its expiry,
   * cut off from the database) has its write refused with FencedOutError, in the same statement.
   */
  async save(name: string, position: bigint, fence: CheckpointFence | null = null): Promise<void> {
    const result = await this.pool.query(
      `WITH held AS (SELECT ${fence === null ? 'true' : fenceHolds('$3', '$4', '$5')} AS held),
       saved AS (INSERT INTO ${this.table} (name, position) SELECT $1, $2::bigint FROM held WHERE held.held
         ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position WHERE ${this.table}.position < EXCLUDED.position RETURNING 1)
       SELECT held FROM held`,
      fence === null ? [name, position.toString()] : [name, position.toString(), fence.lease, fence.holder, fence.fence],
    );
    if (fence !== null && (result.rows[0] as { held: boolean } | undefined)?.held !== true) throw new FencedOutError(fence);
  }

  /**
   * An event of a type this version does not know was skipped (a rolling deploy: a newer version
   * wrote it). Kept beside the checkpoint, as a row named `<name>:skipped:<type>` holding the lowest
   * such position, so that a version that knows the type dispatches it when it starts (see
   * Dispatcher.pickUpSkipped). The lowest position is enough: every event of that type between it and
   * the checkpoint is dispatched then, and dispatching one twice sends nothing twice.
   */
  async recordSkipped(name: string, type: string, position: bigint): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (name, position) VALUES ($1, $2::bigint)
       ON CONFLICT (name) DO UPDATE SET position = LEAST(${this.table}.position, EXCLUDED.position)`,
      [skippedName(name, type), position.toString()],
    );
  }

  /** The types skipped by this dispatcher, each with the lowest position skipped. */
  async skipped(name: string): Promise<{ type: string; position: bigint }[]> {
    const prefix = skippedName(name, '');
    const result = await this.pool.query(
      `SELECT name, position::text AS position FROM ${this.table} WHERE starts_with(name, $1) ORDER BY position`,
      [prefix],
    );
    return (result.rows as { name: string; position: string }[]).map((row) => ({ type: row.name.slice(prefix.length), position: BigInt(row.position) }));
  }

  /** Done with a skipped type up to the checkpoint; a lower position recorded since is kept. */
  async clearSkipped(name: string, type: string, position: bigint): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE name = $1 AND position >= $2::bigint`, [skippedName(name, type), position.toString()]);
  }
}

const skippedName = (name: string, type: string): string => `${name}:skipped:${type}`;
