import { once } from 'node:events';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { statementName } from '#event-store';

const ROWS_PER_STATEMENT = 2_000;
/**
 * Served JSON travels as one text joined by U+0002, which JSON.stringify never writes raw: no
 * escaping on either side. Measured faster than a jsonb array holding it, itself several times
 * faster than unnest() over text[] and jsonb[] literals, which are escaped and parsed element by element.
 */
const SERVED_SEPARATOR = '\u0002';
const upsertSql = (qualifiedTable: string, served: boolean): string =>
  `INSERT INTO ${qualifiedTable} (id, doc, json, position) SELECT i.value, d.value, ${served ? 'j.value' : 'NULL'}, $4::bigint
   FROM jsonb_array_elements_text($1::jsonb) WITH ORDINALITY AS i(value, n)
   JOIN jsonb_array_elements($2::jsonb) WITH ORDINALITY AS d(value, n) ON d.n = i.n
   ${served ? "JOIN unnest(string_to_array($3::text, E'\\x02')) WITH ORDINALITY AS j(value, n) ON j.n = i.n" : 'WHERE $3::text IS NOT NULL'}
   ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, json = EXCLUDED.json, position = EXCLUDED.position`;

/** A collection's changes as rows: each document's id, its JSON and its served JSON (where the collection serves one), and the ids to delete. */
export const rowsOf = (docs: ReadonlyMap<string, object | null>, served: ((doc: object) => string) | undefined) => {
  const ids: string[] = [];
  const stored: string[] = [];
  const json: string[] = [];
  const deletes: string[] = [];
  for (const [id, doc] of docs) {
    if (doc === null) {
      deletes.push(id);
      continue;
    }
    ids.push(id);
    stored.push(JSON.stringify(doc));
    if (served !== undefined) json.push(served(doc));
  }
  return { ids, stored, json, deletes };
};

/**
 * Upserts and deletes one collection's documents (each id once), stamped with `position`, with
 * the served JSON of each where the collection has one: a few statements whatever their number.
 */
export const writeRows = async (
  client: PoolClient,
  qualifiedTable: string,
  docs: ReadonlyMap<string, object | null>,
  served: ((doc: object) => string) | undefined,
  position: bigint,
): Promise<void> => {
  const { ids, stored, json, deletes } = rowsOf(docs, served);
  for (let start = 0; start < ids.length; start += ROWS_PER_STATEMENT) {
    const end = start + ROWS_PER_STATEMENT;
    const text = upsertSql(qualifiedTable, served !== undefined);
    await client.query({ name: statementName('rm', text), text, values: [
      JSON.stringify(ids.slice(start, end)), `[${stored.slice(start, end).join(',')}]`, json.slice(start, end).join(SERVED_SEPARATOR), position.toString(),
    ] });
  }
  if (deletes.length > 0) await client.query(`DELETE FROM ${qualifiedTable} WHERE id = ANY($1::text[])`, [deletes]);
};

/** COPY's binary format: a signature, no flags, no header extension; a field count of -1 ends the rows. */
const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const COPY_HEADER = Buffer.concat([COPY_SIGNATURE, Buffer.alloc(8)]);
const COPY_TRAILER = Buffer.from([0xff, 0xff]);
/** Bytes per COPY data message: sent while the next are encoded. */
const COPY_CHUNK_BYTES = 1 << 20;
/** A row's fixed bytes: field count, 4 lengths, jsonb's version byte, the position. */
const ROW_FIXED_BYTES = 2 + 4 * 4 + 1 + 8;

/**
 * Adds documents that no row holds yet (a rebuild's first write of each into its own empty table)
 * with COPY, stamped with `position`, with the served JSON of each where the collection has one: no
 * JSON array built on either side and no conflict looked for. The binary format needs no escaping
 * on either side (the text format's scan for special characters cost the client a regular
 * expression per value and the server a character-by-character parse): each value is encoded
 * straight into the chunk being filled and its length written in front of it afterwards.
 * A null document has no row to write.
 */
export const copyNewRows = async (
  client: PoolClient,
  qualifiedTable: string,
  docs: ReadonlyMap<string, object>,
  served: ((doc: object) => string) | undefined,
  position: bigint,
): Promise<void> => {
  if (docs.size === 0) return;
  const stream = client.query(copyFrom(`COPY ${qualifiedTable} (id, doc, json, position) FROM STDIN (FORMAT binary)`));
  // The server may refuse the rows while they are still being sent: nothing more is sent then, and
  // its error is what this throws (the stream has let go of the connection).
  let failed = false;
  const done = new Promise<void>((resolve, reject) => {
    stream.once('finish', resolve);
    stream.once('error', (error) => {
      failed = true;
      reject(error);
    });
  });
  // A failure while waiting for room below is thrown from there.
  done.catch(() => undefined);
  let chunk = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
  let used = COPY_HEADER.copy(chunk, 0);
  // Set when the connection's buffer is full: the next row waits for it to drain.
  let full = false;
  /** Room for `bytes` more in the chunk: a full chunk is sent and a new one begun. */
  const reserve = (bytes: number): void => {
    if (used + bytes <= chunk.length) return;
    if (used > 0 && !stream.write(chunk.subarray(0, used))) full = true;
    chunk = Buffer.allocUnsafe(Math.max(COPY_CHUNK_BYTES, bytes));
    used = 0;
  };
  /** A text field: its UTF-8 bytes after their length (UTF-8 takes at most 3 bytes per UTF-16 unit). */
  const putText = (text: string, prefix: number | null): void => {
    const lengthAt = used;
    used += 4;
    if (prefix !== null) used = chunk.writeUInt8(prefix, used);
    used += chunk.write(text, used);
    chunk.writeInt32BE(used - lengthAt - 4, lengthAt);
  };
  const positionBytes = Buffer.allocUnsafe(12);
  positionBytes.writeInt32BE(8, 0);
  positionBytes.writeBigInt64BE(position, 4);
  for (const [id, doc] of docs) {
    if (failed) break;
    if (full) {
      await once(stream, 'drain');
      full = false;
    }
    const stored = JSON.stringify(doc);
    const json = served === undefined ? null : served(doc);
    reserve(ROW_FIXED_BYTES + 3 * (id.length + stored.length + (json?.length ?? 0)));
    used = chunk.writeInt16BE(4, used);
    putText(id, null);
    // jsonb's binary form: a version byte (1), then the JSON text.
    putText(stored, 1);
    if (json === null) used = chunk.writeInt32BE(-1, used);
    else putText(json, null);
    used += positionBytes.copy(chunk, used);
  }
  if (!failed) {
    reserve(COPY_TRAILER.length);
    used += COPY_TRAILER.copy(chunk, used);
    stream.end(chunk.subarray(0, used));
  }
  await done;
};
