import type { Pool } from 'pg';
import { qualified, runDdl } from '../shared/sql.js';

export const CHECKPOINTS_TABLE = 'dispatch_checkpoints';

/**
 * The dispatcher's own checkpoint, apart from the read models' so that rebuilding a read model
 * never sends an e-mail or a webhook again.
 */
export class DispatchCheckpoints {
  private readonly table: string;

  constructor(private readonly pool: Pool, private readonly schema: string) {
    this.table = qualified(schema, CHECKPOINTS_TABLE);
  }

  async ensureSchema(): Promise<void> {
    await runDdl(this.pool, this.schema, [`CREATE TABLE IF NOT EXISTS ${this.table} (name text COLLATE "C" PRIMARY KEY, position bigint NOT NULL)`]);
  }

  async read(name: string): Promise<bigint | null> {
    const result = await this.pool.query(`SELECT position::text AS position FROM ${this.table} WHERE name = $1`, [name]);
    const row = result.rows[0] as { position: string } | undefined;
    return row ? BigInt(row.position) : null;
  }

  /** Only ever forward: a slow second process cannot move the checkpoint back. */
  async save(name: string, position: bigint): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (name, position) VALUES ($1, $2::bigint)
       ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position WHERE ${this.table}.position < EXCLUDED.position`,
      [name, position.toString()],
    );
  }
}
