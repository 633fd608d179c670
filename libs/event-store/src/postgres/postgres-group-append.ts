import type pg from 'pg';
import { WrongExpectedRevisionError } from '../event-store.port.js';
import type { AppendResult, StreamAppend } from '../event-store.port.js';
import { appendInTransaction, isStreamRevisionViolation } from './postgres-append.js';
import type { PostgresTables } from './postgres-schema.js';

/*
 * Group commit at the store: appends that arrive while a transaction is being written wait and go
 * together in the next one, so 16 concurrent single-event appends cost one transaction, one commit
 * and ONE round trip (BEGIN, the append lock, one INSERT for every stream, NOTIFY and COMMIT are one
 * simple-protocol query). The global order keeps the append lock of postgres-append.ts: positions
 * are handed out and made visible in commit order. Each caller keeps its own all-or-nothing
 * outcome: a caller whose expected revisions do not all hold inserts nothing (the SQL groups the
 * check by caller), the others commit. Two callers on one stream never share a transaction, so the
 * later one sees the earlier one's events. A statement error re-runs the callers one by one, so
 * only the one at fault fails.
 */

interface Waiting {
  appends: StreamAppend[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

interface InsertedRow {
  position: string;
  stream_id: string;
  revision: string;
}

const MAX_CALLERS_PER_TRANSACTION = 64;

function groupSql(tables: PostgresTables, input: string, notify: boolean): string {
  return `BEGIN; SELECT pg_advisory_xact_lock(${tables.appendLock[0]}, ${tables.appendLock[1]});
    WITH input AS (
      SELECT (a.item->>'c')::int AS caller, a.ord, a.item->>'s' AS stream_id, a.item->>'k' AS kind, (a.item->>'r')::bigint AS expected, a.item->'e' AS events
      FROM jsonb_array_elements(${input}::jsonb) WITH ORDINALITY AS a(item, ord)
    ), current AS (
      SELECT input.*, (SELECT max(revision) FROM ${tables.events} WHERE stream_id = input.stream_id) AS revision FROM input
    ), accepted AS (
      SELECT caller FROM current GROUP BY caller
      HAVING bool_and(coalesce(kind = 'any' OR (kind = 'no_stream' AND revision IS NULL) OR revision = expected, false))
    )
    INSERT INTO ${tables.events} (id, stream_id, revision, type, data, metadata, recorded_at, hash)
    SELECT (e.event->>'id')::uuid, c.stream_id, coalesce(c.revision, -1) + e.ord, e.event->>'type', e.event->'data', e.event->'metadata',
      coalesce((e.event->'integrity'->>'recordedAt')::timestamptz, now()), e.event->'integrity'->>'hash'
    FROM current c JOIN accepted USING (caller) CROSS JOIN LATERAL jsonb_array_elements(c.events) WITH ORDINALITY AS e(event, ord)
    ORDER BY c.ord, e.ord
    RETURNING position, stream_id, revision;
    ${notify ? `NOTIFY ${tables.notifyChannel};` : ''} COMMIT`;
}

const streamsOf = (waiting: Waiting): string[] => waiting.appends.map((append) => append.streamId);

export class GroupAppender {
  private readonly queue: Waiting[] = [];
  private writing = false;

  constructor(private readonly pool: pg.Pool, private readonly tables: PostgresTables, private readonly notify: boolean) {}

  append(appends: StreamAppend[]): Promise<AppendResult> {
    // A check without events needs the stream's revision back, and a stream named twice needs its
    // appends one after another: the one-caller transaction of postgres-append.ts does both.
    const streams = new Set(appends.map((append) => append.streamId));
    if (appends.length === 0 || streams.size < appends.length || appends.some((append) => append.events.length === 0)) {
      return appendInTransaction(this.pool, this.tables, appends, this.notify);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ appends, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) await this.write(this.takeGroup());
    } finally {
      this.writing = false;
    }
  }

  /** The oldest callers that touch disjoint streams; the rest wait for the next transaction. */
  private takeGroup(): Waiting[] {
    const group: Waiting[] = [];
    const streams = new Set<string>();
    for (let index = 0; index < this.queue.length && group.length < MAX_CALLERS_PER_TRANSACTION;) {
      const waiting = this.queue[index] as Waiting;
      if (streamsOf(waiting).some((streamId) => streams.has(streamId))) {
        index += 1;
        continue;
      }
      for (const streamId of streamsOf(waiting)) streams.add(streamId);
      group.push(waiting);
      this.queue.splice(index, 1);
    }
    return group;
  }

  private async write(group: Waiting[]): Promise<void> {
    const input = group.flatMap((waiting, caller) => waiting.appends.map((append) => ({
      c: caller, s: append.streamId,
      k: typeof append.expectedRevision === 'number' ? 'revision' : append.expectedRevision,
      r: typeof append.expectedRevision === 'number' ? append.expectedRevision : null,
      e: append.events.map(({ id, type, data, metadata, integrity }) => ({ id, type, data, metadata, integrity })),
    })));
    let rows: InsertedRow[];
    const client = await this.pool.connect().catch((error: unknown) => {
      for (const waiting of group) waiting.reject(error);
      return null;
    });
    if (client === null) return;
    try {
      const results = (await client.query(groupSql(this.tables, client.escapeLiteral(JSON.stringify(input)), this.notify))) as unknown as pg.QueryResult[];
      rows = (results.find((result) => result.command === 'INSERT')?.rows ?? []) as InsertedRow[];
      client.release();
    } catch (error) {
      await client.query('ROLLBACK').then(() => client.release(), (rollbackError: unknown) => client.release(rollbackError instanceof Error ? rollbackError : true));
      // Only a writer that skipped the append lock can cause this one: it is a lost race, a conflict.
      if (group.length === 1) group[0]?.reject(isStreamRevisionViolation(error) && group[0] ? await this.conflict(group[0]) : error);
      else for (const waiting of group) await this.write([waiting]);
      return;
    }
    await this.settle(group, rows);
  }

  private async settle(group: Waiting[], rows: InsertedRow[]): Promise<void> {
    const byStream = new Map<string, InsertedRow[]>();
    for (const row of rows) byStream.set(row.stream_id, [...(byStream.get(row.stream_id) ?? []), row]);
    for (const waiting of group) {
      const inserted = waiting.appends.map((append) => byStream.get(append.streamId) ?? []);
      if (inserted.every((streamRows) => streamRows.length > 0)) {
        const nextRevision = Math.max(...(inserted.at(-1) ?? []).map((row) => Number(row.revision)));
        const position = inserted.flat().reduce((highest, row) => (BigInt(row.position) > highest ? BigInt(row.position) : highest), 0n);
        waiting.resolve({ nextRevision, position });
        continue;
      }
      waiting.reject(await this.conflict(waiting));
    }
  }

  /** The first stream whose expected revision did not hold, with its actual revision. */
  private async conflict(waiting: Waiting): Promise<unknown> {
    try {
      for (const append of waiting.appends) {
        const result = await this.pool.query<{ revision: string | null }>(`SELECT max(revision) AS revision FROM ${this.tables.events} WHERE stream_id = $1`, [append.streamId]);
        const actual = result.rows[0]?.revision ?? null;
        const revision = actual === null ? null : Number(actual);
        const holds = append.expectedRevision === 'any' || (append.expectedRevision === 'no_stream' ? revision === null : revision === append.expectedRevision);
        if (!holds) return new WrongExpectedRevisionError(append.streamId, append.expectedRevision, revision ?? 'no_stream');
      }
      const first = waiting.appends[0];
      return new WrongExpectedRevisionError(first?.streamId ?? '', first?.expectedRevision ?? 'any', 'no_stream');
    } catch (error) {
      return error;
    }
  }
}
