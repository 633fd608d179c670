import { createHmac } from 'node:crypto';
import type pg from 'pg';
import { canonicalJson, quoteIdent } from '#platform';

/** The link before the log's first event. */
export const GENESIS_LINK = '';

/** What a link covers of one event: its place in the global order and its hash (which covers the rest). */
export interface LinkedFields {
  position: bigint;
  streamId: string;
  revision: number;
  hash?: string;
}

export interface StoredLink {
  position: bigint;
  link: string;
}

/**
 * The chain over the global order: each event's link is an HMAC (key from the service secret) over
 * the previous event's link and the event's position, stream, revision and hash. The per-stream chain
 * (event-hash.ts) cannot see a stream's newest event or a whole stream removed; this one can. Keyed,
 * so someone with only the database cannot recompute the links after a removal.
 */
export const linkHash = (key: Buffer, previousLink: string, event: LinkedFields): string =>
  createHmac('sha256', key)
    .update(canonicalJson([previousLink, event.position.toString(), event.streamId, event.revision, event.hash ?? null]))
    .digest('hex');

/**
 * The links, one row per event, beside the seals. Written by the sealer shortly after each append
 * (log-sealer.ts), never by the append itself, on every adapter. A link is a fact computed from
 * committed events only: two sealers write the same value, and the second insert does nothing.
 */
export class LinkStore {
  private readonly table: string;

  constructor(private readonly pool: pg.Pool, schema = 'public') {
    this.table = `${quoteIdent(schema)}.audit_links`;
  }

  async latest(): Promise<StoredLink | null> {
    // Ordered by the bigint column, not by its text (an alias named like the column would order as text).
    const result = await this.pool.query<{ at: string; link: string }>(`SELECT position::text AS at, link FROM ${this.table} ORDER BY position DESC LIMIT 1`);
    const row = result.rows[0];
    return row === undefined ? null : { position: BigInt(row.at), link: row.link };
  }

  /** The links after `after` (exclusive) up to `upTo` (inclusive; null: to the end), in order. */
  async range(after: bigint | null, upTo: bigint | null): Promise<StoredLink[]> {
    const result = await this.pool.query<{ at: string; link: string }>(
      `SELECT position::text AS at, link FROM ${this.table} WHERE ($1::bigint IS NULL OR position > $1::bigint) AND ($2::bigint IS NULL OR position <= $2::bigint) ORDER BY position`,
      [after?.toString() ?? null, upTo?.toString() ?? null],
    );
    return result.rows.map((row) => ({ position: BigInt(row.at), link: row.link }));
  }

  /** Stores links; a position already linked (by another sealer) is left as it is. */
  async add(links: readonly StoredLink[]): Promise<void> {
    if (links.length === 0) return;
    await this.pool.query(
      `INSERT INTO ${this.table} (position, link) SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT (position) DO NOTHING`,
      [links.map((link) => link.position.toString()), links.map((link) => link.link)],
    );
  }
}
