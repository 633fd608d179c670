import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import { newEvent } from '../testing/contract-support.js';
import { runEventStoreContract } from '../testing/event-store.contract.js';
import { createEmbeddedEventStore, type EmbeddedEventStore } from '../embedded/embedded-event-store.js';
import { createPostgresEventStore } from '../postgres/postgres-event-store.js';
import { IntegrityEventStore } from './integrity-event-store.js';
import { integrityKeys } from './integrity-keys.js';
import { exportLines, linesSource, linkedBatches, storeSource, type LogSource } from './log-export.js';
import { LogSealer } from './log-sealer.js';
import { LogVerifier } from './log-verifier.js';
import type { LogSeal } from './log-seal.js';
import { SealStore } from './seal-store.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const server = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
const keys = integrityKeys(randomBytes(32).toString('base64url'));
const dropped: { pool: pg.Pool; schema: string }[] = [];
let embedded: EmbeddedEventStore | null = null;
let embeddedDir = '';

beforeAll(async () => {
  embeddedDir = await mkdtemp(join(tmpdir(), 'tamper-'));
  embedded = await createEmbeddedEventStore({ dataDir: embeddedDir, logger: pino({ level: 'silent' }) });
}, 60_000);

afterAll(async () => {
  for (const { pool, schema } of dropped) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await server.end();
  await embedded?.stop();
  await rm(embeddedDir, { recursive: true, force: true });
});

type Where = 'PostgreSQL' | 'embedded PGlite';

/** A log of its own (a schema) on the PostgreSQL server or in the embedded database, as the service writes and seals it. */
const openLog = async (where: Where) => {
  const pool = where === 'PostgreSQL' ? server : embedded?.database.pool;
  if (pool === undefined) throw new Error('the embedded database did not start');
  const schema = `integrity_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  dropped.push({ pool, schema });
  const inner = await createPostgresEventStore(where === 'PostgreSQL'
    ? { pool, schema, listen: false }
    : { pool, schema, listen: false, notify: false, deployment: 'single-process', preparedStatements: true });
  const store = new IntegrityEventStore(inner, keys.eventKey);
  const seals = new SealStore(pool, schema);
  await seals.prepare();
  const sealer = new LogSealer({ eventStore: store, seals, linkKey: keys.linkKey, signer: keys.signer, logger: pino({ level: 'silent' }), intervalMs: 60_000 });
  return { pool, schema, store, seals, sealer, table: `"${schema}".events`, query: (sql: string, values?: unknown[]) => pool.query(sql, values) };
};

const findings = async (source: LogSource, keptSeals: LogSeal[] = []): Promise<string[]> => {
  const verifier = new LogVerifier({ eventKey: keys.eventKey, linkKey: keys.linkKey, trustedPublicKey: keys.signer.publicKey, keptSeals });
  for (const seal of await source.seals()) verifier.addSeal(seal);
  for await (const { events, links } of linkedBatches(source)) {
    verifier.addLinks(links);
    for (const event of events) verifier.add(event);
  }
  return verifier.finish().findings;
};

for (const where of ['PostgreSQL', 'embedded PGlite'] as const) {
  runEventStoreContract(`${where} behind the integrity layer`, async () => {
    const log = await openLog(where);
    return { store: log.store, close: () => log.store.close() };
  });

  describe(`tamper evidence on the ${where} tables`, () => {
    let log: Awaited<ReturnType<typeof openLog>>;
    const verify = (kept: LogSeal[] = []) => findings(storeSource(log.store, log.seals, keys.signer.publicKey), kept);
    /** The position of a stream's event. */
    const positionOf = async (streamId: string, revision: number): Promise<string> =>
      (await log.query(`SELECT position::text AS position FROM ${log.table} WHERE stream_id = $1 AND revision = $2`, [streamId, revision])).rows[0]?.position;

    beforeEach(async () => {
      log = await openLog(where);
      // Three streams of four events, interleaved in the global order, appended the ways the service does.
      for (let round = 0; round < 4; round += 1) {
        for (const name of ['a', 'b', 'c']) {
          await log.store.appendToStream(name, [newEvent('Happened', { round, name, nested: { z: 1, a: [round] } })], { expectedRevision: round === 0 ? 'no_stream' : round - 1 });
        }
      }
      await log.store.appendToStreams([
        { streamId: 'a', expectedRevision: 3, events: [newEvent('Joined', { with: 'b' })] },
        { streamId: 'b', expectedRevision: 3, events: [newEvent('Joined', { with: 'a' })] },
      ]);
      await log.store.appendToStream('d', [newEvent('Any')], { expectedRevision: 'any' });
      await log.store.appendToStream('d', [newEvent('Any')], { expectedRevision: 'any' });
      await log.sealer.sealPending();
      // Appended after the seal, and linked: only the links vouch for these.
      await log.store.appendToStream('c', [newEvent('Later', { n: 1 })], { expectedRevision: 3 });
      await log.store.appendToStream('e', [newEvent('Later', { n: 2 })], { expectedRevision: 'no_stream' });
      await log.store.appendToStream('f', [newEvent('Later', { n: 3 })], { expectedRevision: 'no_stream' });
      await log.store.appendToStream('c', [newEvent('Later', { n: 4 })], { expectedRevision: 4 });
      await log.sealer.linkPending();
    });

    afterEach(() => log.store.close());

    it('verifies an untouched log, and a later seal continues the first, with the link of its last event', async () => {
      expect(await verify()).toEqual([]);
      const second = await log.sealer.sealPending();
      expect(second).toMatchObject({ sequence: 2, eventCount: 4, link: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(await verify()).toEqual([]);
    });

    it('catches an edited data column at its stream and revision', async () => {
      await log.query(`UPDATE ${log.table} SET data = jsonb_set(data, '{round}', '7') WHERE stream_id = 'b' AND revision = 2`);
      expect((await verify())[0]).toMatch(/^b revision 2 \(position \d+\): broken link/);
    });

    it('catches edited metadata', async () => {
      await log.query(`UPDATE ${log.table} SET metadata = jsonb_set(metadata, '{actor}', '"someone-else"') WHERE stream_id = 'c' AND revision = 1`);
      expect((await verify())[0]).toMatch(/^c revision 1 .*broken link/);
    });

    it('catches an edited recorded time', async () => {
      await log.query(`UPDATE ${log.table} SET recorded_at = recorded_at - interval '1 day' WHERE stream_id = 'a' AND revision = 0`);
      expect((await verify())[0]).toMatch(/^a revision 0 .*broken link/);
    });

    it('catches a middle event deleted, at its position', async () => {
      const position = await positionOf('a', 1);
      await log.query(`DELETE FROM ${log.table} WHERE stream_id = 'a' AND revision = 1`);
      const found = await verify();
      expect(found[0]).toBe(`position ${position}: linked into the log's order, and no longer in the log (an event was removed)`);
      expect(found.join('\n')).toMatch(/a revision 2 .*revision 1 was expected/);
      expect(found.join('\n')).toMatch(/seal 1 .*sealed 16 events, the log now has 15/);
    });

    it('catches the newest event of a stream deleted, sealed or not, though its stream chain still holds', async () => {
      const sealed = await positionOf('b', 4);
      await log.query(`DELETE FROM ${log.table} WHERE stream_id = 'b' AND revision = 4`);
      expect((await verify())[0]).toBe(`position ${sealed}: linked into the log's order, and no longer in the log (an event was removed)`);
      // One not sealed yet: only its link vouches for it. Deleted with its link, the next event's link breaks.
      const unsealed = await positionOf('e', 0);
      await log.query(`DELETE FROM ${log.table} WHERE stream_id = 'e'`);
      await log.query(`DELETE FROM "${log.schema}".audit_links WHERE position = $1`, [unsealed]);
      const found = await verify();
      expect(found.join('\n')).toMatch(new RegExp(`f revision 0 \\(position ${BigInt(unsealed) + 1n}\\): broken link in the log's order`));
    });

    it('catches a whole stream deleted, sealed or not', async () => {
      await log.query(`DELETE FROM ${log.table} WHERE stream_id = 'd'`);
      expect((await verify())[0]).toMatch(/^position \d+: linked into the log's order, and no longer in the log/);
      await log.query(`DELETE FROM ${log.table} WHERE stream_id = 'f'`);
      expect((await verify()).join('\n')).toMatch(/position \d+: linked into the log's order, and no longer in the log[^\n]*\n(.*\n)*position \d+: linked/);
    });

    it('catches two swapped revisions, and two events swapped in the global order', async () => {
      await log.query(`UPDATE ${log.table} SET revision = -1 WHERE stream_id = 'b' AND revision = 1`);
      await log.query(`UPDATE ${log.table} SET revision = 1 WHERE stream_id = 'b' AND revision = 2`);
      await log.query(`UPDATE ${log.table} SET revision = 2 WHERE stream_id = 'b' AND revision = -1`);
      expect((await verify())[0]).toMatch(/^b revision 2 .*broken link in the log's order|^b revision 2 .*revision 1 was expected/);
      const again = await openLog(where);
      for (const name of ['x', 'y', 'z']) await again.store.appendToStream(name, [newEvent('One')], { expectedRevision: 'no_stream' });
      await again.sealer.linkPending();
      const [x, y] = [await again.query(`SELECT position FROM ${again.table} WHERE stream_id = 'x'`), await again.query(`SELECT position FROM ${again.table} WHERE stream_id = 'y'`)];
      await again.query(`UPDATE ${again.table} SET position = -1 WHERE stream_id = 'x'`);
      await again.query(`UPDATE ${again.table} SET position = $1 WHERE stream_id = 'y'`, [x.rows[0]?.position]);
      await again.query(`UPDATE ${again.table} SET position = $1 WHERE stream_id = 'x'`, [y.rows[0]?.position]);
      expect((await findings(storeSource(again.store, again.seals, keys.signer.publicKey)))[0]).toMatch(/^y revision 0 \(position \d+\): broken link in the log's order/);
      await again.store.close();
    });

    it('catches a forged event inserted with a made-up hash, and one without', async () => {
      await log.query(
        `INSERT INTO ${log.table} (id, stream_id, revision, type, data, metadata, hash) SELECT $1, 'c', 6, 'Forged', '{}', metadata, $2 FROM ${log.table} WHERE stream_id = 'c' AND revision = 5`,
        [randomUUID(), 'f'.repeat(64)],
      );
      expect((await verify())[0]).toMatch(/^c revision 6 .*broken link/);
      await log.query(`INSERT INTO ${log.table} (id, stream_id, revision, type, data, metadata) VALUES ($1, 'g', 0, 'Forged', '{}', '{}')`, [randomUUID()]);
      expect((await verify()).join('\n')).toMatch(/g revision 0 .*has no hash/);
    });

    it('catches a forged event inserted between two others in the global order', async () => {
      const gapped = await openLog(where);
      await gapped.store.appendToStream('x', [newEvent('One')], { expectedRevision: 'no_stream' });
      // A gap in the positions, as an aborted transaction leaves one: room for a forged row.
      await gapped.query(`SELECT setval(pg_get_serial_sequence('${gapped.table}', 'position'), (SELECT max(position) + 5 FROM ${gapped.table}))`);
      await gapped.store.appendToStream('y', [newEvent('Two')], { expectedRevision: 'no_stream' });
      await gapped.sealer.linkPending();
      const y = (await gapped.query(`SELECT position::text AS position, hash FROM ${gapped.table} WHERE stream_id = 'y'`)).rows[0];
      await gapped.query(
        `INSERT INTO ${gapped.table} (position, id, stream_id, revision, type, data, metadata, hash) SELECT position - 1, $1, 'h', 0, 'Forged', '{}', metadata, hash FROM ${gapped.table} WHERE stream_id = 'y'`,
        [randomUUID()],
      );
      const found = await findings(storeSource(gapped.store, gapped.seals, keys.signer.publicKey));
      expect(found[0]).toMatch(new RegExp(`^h revision 0 \\(position ${BigInt(y.position) - 1n}\\): broken link: the hash`));
      expect(found).toContain(`y revision 0 (position ${y.position}): broken link in the log's order: the events before it are not the ones it was linked after (an event removed, inserted or moved before it)`);
      await gapped.store.close();
    });

    it('catches the tail truncated together with the newer seals and links, for an auditor who kept an anchor', async () => {
      const anchor = await log.sealer.sealPending();
      if (anchor === null) throw new Error('nothing sealed');
      const cut = await positionOf('e', 0);
      await log.query(`DELETE FROM ${log.table} WHERE position >= $1`, [cut]);
      await log.query(`DELETE FROM "${log.schema}".audit_links WHERE position >= $1`, [cut]);
      await log.query(`DELETE FROM "${log.schema}".audit_seals WHERE sequence >= $1`, [anchor.sequence]);
      // Nothing in the database shows it any more: only the anchor kept outside does.
      expect(await verify()).toEqual([]);
      const found = await verify([anchor]);
      expect(found[0]).toMatch(new RegExp(`^kept seal 2 \\(up to position ${anchor.toPosition}\\): the log no longer holds the event at position ${anchor.toPosition} \\(it ends at \\d+: the tail was removed\\)`));
      expect(found).toContain('kept seal 2: not in the log any more');
      // An anchor over a log still whole verifies, and a forged anchor does not.
      const whole = await openLog(where);
      await whole.store.appendToStream('x', [newEvent('One')], { expectedRevision: 'no_stream' });
      const kept = await whole.sealer.sealPending();
      if (kept === null) throw new Error('nothing sealed');
      const source = () => storeSource(whole.store, whole.seals, keys.signer.publicKey);
      expect(await findings(source(), [kept])).toEqual([]);
      expect((await findings(source(), [{ ...kept, eventCount: 2 }]))[0]).toMatch(/^kept seal 1 .*signature does not match/);
      await whole.store.close();
    });

    it('catches a rewritten seal, and a seal an auditor kept that the log no longer holds', async () => {
      const kept = await log.seals.latest();
      if (kept === null) throw new Error('nothing sealed');
      await log.query(`UPDATE "${log.schema}".audit_seals SET seal = jsonb_set(seal, '{eventCount}', '15')`);
      expect((await verify())[0]).toMatch(/^seal 1: the signature does not match/);
      await log.query(`DELETE FROM "${log.schema}".audit_seals`);
      expect(await verify([kept])).toEqual(['kept seal 1: not in the log any more']);
    });

    it('verifies an export offline, and catches an edit and a removed line in the exported file', async () => {
      const lines: string[] = [];
      for await (const chunk of exportLines(storeSource(log.store, log.seals, keys.signer.publicKey))) lines.push(...chunk.split('\n').filter(Boolean));
      expect(lines.filter((line) => line.includes('"kind":"event"')).every((line) => line.includes('"link":'))).toBe(true);
      expect(await findings(await linesSource(asLines(lines)))).toEqual([]);
      const edited = lines.map((line) => (line.includes('"round":3') && line.includes('"streamId":"c"') ? line.replace('"round":3', '"round":4') : line));
      expect((await findings(await linesSource(asLines(edited))))[0]).toMatch(/^c revision 3 .*broken link/);
      const newest = lines.filter((line) => line.includes('"streamId":"f"'));
      expect((await findings(await linesSource(asLines(lines.filter((line) => !newest.includes(line))))))[0]).toMatch(/^c revision 5 \(position \d+\): broken link in the log's order/);
    });

    it('a removed event whose link was kept is named in the export too', async () => {
      const position = await positionOf('d', 0);
      await log.query(`DELETE FROM ${log.table} WHERE stream_id = 'd' AND revision = 0`);
      const lines: string[] = [];
      for await (const chunk of exportLines(storeSource(log.store, log.seals, keys.signer.publicKey))) lines.push(...chunk.split('\n').filter(Boolean));
      expect(lines).toContainEqual(expect.stringContaining(`{"kind":"link","position":"${position}"`));
      expect((await findings(await linesSource(asLines(lines))))[0]).toBe(`position ${position}: linked into the log's order, and no longer in the log (an event was removed)`);
    });
  });
}

async function* asLines(lines: string[]): AsyncIterable<string> {
  yield* lines;
}
