import { openAesGcm, sealAesGcm } from '#platform/crypto/aes-gcm.js';
import type pg from 'pg';
import type { FoldSnapshotRead as FoldSnapshot } from '../event-store.port.js';
import type { PersonKeyStore } from './person-keys.js';
import { migrateAuditTables } from '../migrations/audit-tables.migrations.js';
import { statementName } from '../postgres/prepared-statement.js';

/**
 * Snapshots of folds beside the log: a cache that spares folding a long stream after a restart, never
 * a source of truth. One row per stream and fold, the newest revision. The state holds personal data
 * in clear, so each is sealed (AES-256-GCM, bound to stream, fold, revision and version) with its
 * workspace's snapshot key, which erasing anyone in the workspace destroys (PersonKeyStore.destroyKeys).
 */
export class SnapshotStore {
  private readonly table: string;

  constructor(private readonly pool: pg.Pool, private readonly keys: PersonKeyStore, private readonly schema = 'public') {
    this.table = `"${schema.replaceAll('"', '""')}".state_snapshots`;
  }

  /** Runs the audit migrations (they make the table), if not yet. */
  async prepare(): Promise<void> {
    await migrateAuditTables(this.pool, this.schema);
  }

  /** The stream's snapshot of the fold, or null: none, its key destroyed, or not readable (tampered, or of another secret). */
  async read(streamId: string, fold: string): Promise<FoldSnapshot | null> {
    const text = `SELECT revision, version, key_id, body FROM ${this.table} WHERE stream_id = $1 AND fold = $2`;
    const { rows } = await this.pool.query<{ revision: number; version: number; key_id: string; body: string }>({ name: statementName('state_snapshot_read', text), text, values: [streamId, fold] });
    const row = rows[0];
    if (row === undefined) return null;
    const key = (await this.keys.load([row.key_id])).get(row.key_id);
    if (!key) return null;
    try {
      const text = openAesGcm(key, row.body, bound(streamId, fold, row.revision, row.version)).toString('utf8');
      return { revision: row.revision, version: row.version, value: JSON.parse(text) as unknown };
    } catch {
      return null;
    }
  }

  /**
   * Keeps the snapshot unless the stored one is newer (same version, a live key), or anyone in its
   * workspace was erased since a minute before it was taken (it may hold them, sealed with the new key).
   * A minute covers the clocks' skew; a skipped snapshot costs a longer fold, nothing else.
   */
  async write(streamId: string, fold: string, snapshot: FoldSnapshot & { scope: string; takenAt: number }): Promise<void> {
    const { keyId, key } = await this.keys.snapshotKey(snapshot.scope);
    const sealed = sealAesGcm(key, JSON.stringify(snapshot.value), bound(streamId, fold, snapshot.revision, snapshot.version));
    const text = `INSERT INTO ${this.table} AS s (stream_id, fold, revision, version, key_id, body) SELECT $1, $2, $3, $4, $5, $6
        WHERE NOT EXISTS (SELECT 1 FROM ${this.keys.table} k WHERE k.workspace_id = $7 AND k.sealed_key IS NULL
          AND k.destroyed_at >= to_timestamp($8::double precision / 1000) - interval '1 minute')
        ON CONFLICT (stream_id, fold) DO UPDATE SET revision = excluded.revision, version = excluded.version, key_id = excluded.key_id,
          body = excluded.body, taken_at = now()
        WHERE s.revision < excluded.revision OR s.version <> excluded.version OR s.key_id <> excluded.key_id`;
    await this.pool.query({ name: statementName('state_snapshot_write', text), text, values: [streamId, fold, snapshot.revision, snapshot.version, keyId, sealed, snapshot.scope, snapshot.takenAt] });
  }
}

const bound = (streamId: string, fold: string, revision: number, version: number): Buffer => Buffer.from(`${streamId}\u0000${fold}\u0000${revision}\u0000${version}`);
