import type pg from 'pg';
import { quoteIdent } from '#platform';
import { LinkStore } from './log-links.js';
import { migrateAuditTables } from '../migrations/audit-tables.migrations.js';
import type { LogSeal } from './log-seal.js';

/**
 * Seals live in SQL beside the log (in the log's schema on PostgreSQL and PGlite; in the side
 * database with EventStoreDB). Keeping them there is convenience, not trust: an auditor's own copy
 * of a seal is what a rewrite cannot reach.
 */
export class SealStore {
  private readonly table: string;
  /** The links of the chain over the global order, kept beside the seals. */
  readonly links: LinkStore;

  constructor(private readonly pool: pg.Pool, private readonly schema = 'public') {
    this.table = `${quoteIdent(schema)}.audit_seals`;
    this.links = new LinkStore(pool, schema);
  }

  /** The tables are made and changed by the audit migrations (migrations/audit-tables.migrations.ts). */
  async prepare(): Promise<void> {
    await migrateAuditTables(this.pool, this.schema);
  }

  async latest(): Promise<LogSeal | null> {
    const result = await this.pool.query<{ seal: LogSeal }>(`SELECT seal FROM ${this.table} ORDER BY sequence DESC LIMIT 1`);
    return result.rows[0]?.seal ?? null;
  }

  async list(): Promise<LogSeal[]> {
    const result = await this.pool.query<{ seal: LogSeal }>(`SELECT seal FROM ${this.table} ORDER BY sequence`);
    return result.rows.map((row) => row.seal);
  }

  /** False when another process recorded this sequence first. */
  async add(seal: LogSeal): Promise<boolean> {
    const result = await this.pool.query(`INSERT INTO ${this.table} (sequence, seal) VALUES ($1, $2) ON CONFLICT (sequence) DO NOTHING`, [seal.sequence, seal]);
    return result.rowCount === 1;
  }
}
