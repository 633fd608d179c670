import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import { newEvent } from '../contract/contract-support.js';
import { runEventStoreContract } from '../event-store.contract.js';
import { createPostgresEventStore } from '../postgres/postgres-event-store.js';
import { IntegrityEventStore } from './integrity-event-store.js';
import { integrityKeys } from './integrity-keys.js';
import { exportLines, linesSource, storeSource, type LogSource } from './log-export.js';
import { LogSealer } from './log-sealer.js';
import { LogVerifier } from './log-verifier.js';
import { SealStore } from './seal-store.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
const keys = integrityKeys(randomBytes(32).toString('base64url'));
const schemas: string[] = [];

afterAll(async () => {
  for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

const openLog = async () => {
  const schema = `integrity_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  schemas.push(schema);
  const inner = await createPostgresEventStore({ pool, schema, listen: false });
  const store = new IntegrityEventStore(inner, keys.eventKey);
  const seals = new SealStore(pool, schema);
  await seals.prepare();
  const sealer = new LogSealer({ eventStore: store, seals, signer: keys.signer, logger: pino({ level: 'silent' }), intervalMs: 60_000 });
  return { schema, store, seals, sealer, table: `"${schema}".events` };
};

const findings = async (source: LogSource): Promise<string[]> => {
  const verifier = new LogVerifier({ eventKey: keys.eventKey, trustedPublicKey: keys.signer.publicKey });
  for (const seal of await source.seals()) verifier.addSeal(seal);
  for await (const batch of source.batches()) for (const event of batch) verifier.add(event);
  return verifier.finish().findings;
};

runEventStoreContract('PostgreSQL behind the integrity layer', async () => {
  const log = await openLog();
  return { store: log.store, close: () => log.store.close() };
});

describe('tamper evidence on the PostgreSQL tables', () => {
  let log: Awaited<ReturnType<typeof openLog>>;
  const verify = () => findings(storeSource(log.store, log.seals, keys.signer.publicKey));

  beforeEach(async () => {
    log = await openLog();
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
  });

  afterEach(() => log.store.close());

  it('verifies an untouched log, and a later seal continues the first', async () => {
    expect(await verify()).toEqual([]);
    await log.store.appendToStream('c', [newEvent('Later')], { expectedRevision: 3 });
    const second = await log.sealer.sealPending();
    expect(second).toMatchObject({ sequence: 2, eventCount: 1 });
    expect(await verify()).toEqual([]);
  });

  it('catches an edited data column at its stream and revision', async () => {
    await pool.query(`UPDATE ${log.table} SET data = jsonb_set(data, '{round}', '7') WHERE stream_id = 'b' AND revision = 2`);
    const found = await verify();
    expect(found[0]).toMatch(/^b revision 2 \(position \d+\): broken link/);
  });

  it('catches edited metadata', async () => {
    await pool.query(`UPDATE ${log.table} SET metadata = jsonb_set(metadata, '{actor}', '"someone-else"') WHERE stream_id = 'c' AND revision = 1`);
    expect((await verify())[0]).toMatch(/^c revision 1 .*broken link/);
  });

  it('catches an edited recorded time', async () => {
    await pool.query(`UPDATE ${log.table} SET recorded_at = recorded_at - interval '1 day' WHERE stream_id = 'a' AND revision = 0`);
    expect((await verify())[0]).toMatch(/^a revision 0 .*broken link/);
  });

  it('catches a deleted row', async () => {
    await pool.query(`DELETE FROM ${log.table} WHERE stream_id = 'a' AND revision = 1`);
    const found = await verify();
    expect(found[0]).toMatch(/^a revision 2 .*revision 1 was expected/);
    expect(found.join('\n')).toMatch(/seal 1 .*sealed 16 events, the log now has 15/);
  });

  it('catches two swapped revisions', async () => {
    await pool.query(`UPDATE ${log.table} SET revision = -1 WHERE stream_id = 'b' AND revision = 1`);
    await pool.query(`UPDATE ${log.table} SET revision = 1 WHERE stream_id = 'b' AND revision = 2`);
    await pool.query(`UPDATE ${log.table} SET revision = 2 WHERE stream_id = 'b' AND revision = -1`);
    expect((await verify())[0]).toMatch(/^b revision 2 .*revision 1 was expected/);
  });

  it('catches a forged event inserted with a made-up hash, and one without', async () => {
    await pool.query(
      `INSERT INTO ${log.table} (id, stream_id, revision, type, data, metadata, hash) SELECT $1, 'c', 4, 'Forged', '{}', metadata, $2 FROM ${log.table} WHERE stream_id = 'c' AND revision = 3`,
      [randomUUID(), 'f'.repeat(64)],
    );
    expect((await verify())[0]).toMatch(/^c revision 4 .*broken link/);
    await pool.query(`INSERT INTO ${log.table} (id, stream_id, revision, type, data, metadata) VALUES ($1, 'e', 0, 'Forged', '{}', '{}')`, [randomUUID()]);
    expect((await verify()).join('\n')).toMatch(/e revision 0 .*has no hash/);
  });

  it('catches the newest events dropped, and a whole stream deleted, through the seal', async () => {
    await pool.query(`DELETE FROM ${log.table} WHERE position > (SELECT max(position) - 3 FROM ${log.table})`);
    expect((await verify())[0]).toMatch(/^seal 1 .*sealed 16 events, the log now has 13/);
    const again = await openLog();
    await again.store.appendToStream('x', [newEvent('One')], { expectedRevision: 'no_stream' });
    await again.store.appendToStream('y', [newEvent('Two')], { expectedRevision: 'no_stream' });
    await again.sealer.sealPending();
    await pool.query(`DELETE FROM ${again.table} WHERE stream_id = 'x'`);
    expect((await findings(storeSource(again.store, again.seals, keys.signer.publicKey)))[0]).toMatch(/^seal 1 .*sealed 2 events, the log now has 1/);
    await again.store.close();
  });

  it('catches a rewritten seal, and a seal an auditor kept that the log no longer holds', async () => {
    const kept = await log.seals.latest();
    await pool.query(`UPDATE "${log.schema}".audit_seals SET seal = jsonb_set(seal, '{eventCount}', '15')`);
    expect((await verify())[0]).toMatch(/^seal 1: the signature does not match/);
    await pool.query(`DELETE FROM "${log.schema}".audit_seals`);
    const verifier = new LogVerifier({ eventKey: keys.eventKey, trustedPublicKey: keys.signer.publicKey, keptSeals: kept === null ? [] : [kept] });
    expect(verifier.finish().findings).toEqual(['kept seal 1: not in the log any more']);
  });

  it('verifies an export offline, and catches an edit in the exported file', async () => {
    const lines: string[] = [];
    for await (const chunk of exportLines(storeSource(log.store, log.seals, keys.signer.publicKey))) lines.push(...chunk.split('\n').filter(Boolean));
    expect(await findings(await linesSource(asLines(lines)))).toEqual([]);
    const edited = lines.map((line) => (line.includes('"round":3') && line.includes('"streamId":"c"') ? line.replace('"round":3', '"round":4') : line));
    expect((await findings(await linesSource(asLines(edited))))[0]).toMatch(/^c revision 3 .*broken link/);
  });
});

async function* asLines(lines: string[]): AsyncIterable<string> {
  yield* lines;
}
