import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { newEvent } from '../testing/contract-support.js';
import { runEventStoreContract } from '../testing/event-store.contract.js';
import { type InlineProjector, WrongExpectedRevisionError } from '../event-store.port.js';
import { IntegrityEventStore } from '../integrity/integrity-event-store.js';
import { sqlLiteral } from '../postgres/sql-literal.js';
import { integrityKeys } from '../integrity/integrity-keys.js';
import { LogVerifier } from '../integrity/log-verifier.js';
import { createPostgresEventStore } from '../postgres/postgres-event-store.js';
import { PersonKeyStore, personKey } from './person-keys.js';
import { PersonalDataEventStore } from './personal-data-event-store.js';
import { sealedKeyIds } from './personal-fields.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
const secret = randomBytes(32).toString('base64url');
const keys = integrityKeys(secret);
const schemas: string[] = [];

afterAll(async () => {
  for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

const openLog = async (options: { keysInAppend?: boolean } = {}) => {
  const schema = `personal_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  schemas.push(schema);
  const raw = new IntegrityEventStore(await createPostgresEventStore({ pool, schema, listen: false }), keys.eventKey);
  const personKeys = new PersonKeyStore(pool, secret, schema);
  await personKeys.prepare();
  return { schema, raw, personKeys, store: new PersonalDataEventStore(raw, personKeys, null, options) };
};

/** Destroys the person's current key, as an erasure does with the keys that sealed the person's events. */
const destroyPerson = async (personKeys: PersonKeyStore, workspaceId: string, email: string): Promise<number> => {
  const current = (await personKeys.keysFor([{ workspaceId, email }])).get(personKey(workspaceId, email));
  return personKeys.destroyKeys(workspaceId, current === undefined ? [] : [current.keyId]);
};

runEventStoreContract('PostgreSQL behind the personal-data and integrity layers', async () => {
  const log = await openLog();
  return { store: log.store, close: () => log.store.close() };
});

runEventStoreContract('PostgreSQL behind the personal-data and integrity layers, new keys stored by the appends', async () => {
  const log = await openLog({ keysInAppend: true });
  return { store: log.store, close: () => log.store.close() };
});

describe('personal data in the log', () => {
  const person = { workspaceId: 'ws_1', email: 'ada@example.com', firstName: 'Ada', surname: 'Lovelace' };
  const created = () => newEvent('CandidateCreated', { candidateId: 'c1', mode: 'sandbox', ...person });
  const started = () => newEvent('AssessmentStarted', { candidateId: 'c1', workspaceId: 'ws_1', candidate: { id: 'c1', email: person.email, firstName: 'Ada', surname: 'Lovelace' } });

  it('stores it sealed, reads it clear, and reads it as erased once the key is destroyed, the chain intact', async () => {
    const { raw, store, personKeys } = await openLog();
    await store.appendToStream('candidate-c1', [created(), started()], { expectedRevision: 'no_stream' });
    await store.appendToStream('other', [newEvent('Unrelated', { email: 'not-a-person-without-workspace' })], { expectedRevision: 'no_stream' });

    const stored = JSON.stringify((await raw.readStream('candidate-c1')).map((event) => event.data));
    for (const value of ['ada@example.com', 'Ada', 'Lovelace']) expect(stored).not.toContain(value);
    const clear = await store.readStream('candidate-c1');
    expect(clear[0]?.data).toMatchObject(person);
    expect(clear[1]?.data.candidate).toEqual({ id: 'c1', email: person.email, firstName: 'Ada', surname: 'Lovelace' });
    expect((await store.readStream('other'))[0]?.data).toEqual({ email: 'not-a-person-without-workspace' });

    expect(await destroyPerson(personKeys, 'ws_1', person.email)).toBe(1);
    const erased = await store.readAll({ after: null, maxCount: 10 });
    expect(erased[0]?.data).toMatchObject({ email: '[erased]', firstName: '[erased]', surname: '[erased]', candidateId: 'c1' });
    expect(erased[1]?.data.candidate).toEqual({ id: 'c1', email: '[erased]', firstName: '[erased]', surname: '[erased]' });

    const verifier = new LogVerifier({ eventKey: keys.eventKey, trustedPublicKey: null });
    for (const event of await raw.readAll({ after: null, maxCount: 10 })) verifier.add(event);
    expect(verifier.finish().findings).toEqual([]);

    // The same address invited again after the erasure gets a new key: readable, the old events stay erased.
    await store.appendToStream('candidate-c1', [started()], { expectedRevision: 1 });
    const again = await store.readStream('candidate-c1');
    expect(again.map((event) => (event.data.candidate as { email?: string } | undefined)?.email ?? event.data.email)).toEqual(['[erased]', '[erased]', person.email]);
  });

  it('opens the names of a stream read only when something reads them, with the same values, erased ones included', async () => {
    const { store, personKeys } = await openLog();
    await store.appendToStream('candidate-c1', [created()], { expectedRevision: 'no_stream' });
    await store.appendToStream('candidate-c2', [newEvent('CandidateCreated', { candidateId: 'c2', mode: 'live', workspaceId: 'ws_1', email: 'bob@example.com', firstName: 'Bob', surname: 'Ross' })], { expectedRevision: 'no_stream' });
    expect(await destroyPerson(personKeys, 'ws_1', 'bob@example.com')).toBe(1);

    const [event] = await store.readStream('candidate-c1');
    const data = event?.data ?? {};
    // The address is open; the names are not yet (an accessor), then read as their values.
    expect(Object.getOwnPropertyDescriptor(data, 'email')).toMatchObject({ value: person.email });
    expect(Object.getOwnPropertyDescriptor(data, 'firstName')?.get).toEqual(expect.any(Function));
    expect(JSON.parse(JSON.stringify(data))).toMatchObject(person);
    expect(Object.getOwnPropertyDescriptor(data, 'firstName')).toMatchObject({ value: 'Ada', writable: true, enumerable: true });
    const streams = await store.readStreams(['candidate-c1', 'candidate-c2']);
    expect({ ...streams.get('candidate-c1')?.[0]?.data }).toMatchObject(person);
    expect(streams.get('candidate-c2')?.[0]?.data).toMatchObject({ email: '[erased]', firstName: '[erased]', surname: '[erased]' });
    // readAll (a rebuild reads every field) gets every field open at once.
    const [followed] = await store.readAll({ after: null, maxCount: 1 });
    expect(Object.getOwnPropertyDescriptor(followed?.data ?? {}, 'firstName')).toMatchObject({ value: 'Ada' });

    // A subscription opens each field when it is first read (a follower skips much of what it gets).
    const handed: Record<string, unknown>[] = [];
    const subscription = store.subscribeToAll({ after: null, handler: async (recorded) => { handed.push(recorded.data); } });
    for (let waited = 0; handed.length < 2 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await subscription.stop();
    const [live, erased] = handed;
    for (const field of ['email', 'firstName', 'surname']) expect(Object.getOwnPropertyDescriptor(live ?? {}, field)?.get).toEqual(expect.any(Function));
    expect({ ...live }).toMatchObject(person);
    expect(Object.getOwnPropertyDescriptor(live ?? {}, 'email')).toMatchObject({ value: person.email, writable: true, enumerable: true });
    expect(JSON.parse(JSON.stringify(erased))).toMatchObject({ email: '[erased]', firstName: '[erased]', surname: '[erased]' });
  });

  it('names an address registry stream with a keyed hash, never the plain SHA-256 of the address', async () => {
    const { raw, store } = await openLog();
    const digest = createHash('sha256').update(person.email).digest('hex').slice(0, 40);
    const domainName = `candidate-email-ws_1-${digest}`;
    await store.appendToStream(domainName, [newEvent('CandidateEmailClaimed', { workspaceId: 'ws_1', email: person.email, candidateId: 'c1' })], { expectedRevision: 'no_stream' });
    const [recorded] = await raw.readAll({ after: null, maxCount: 1 });
    expect(recorded?.streamId).toMatch(/^candidate-email-ws_1-[0-9a-f]{40}$/);
    expect(recorded?.streamId).not.toContain(digest);
    expect((await store.readStream(domainName))[0]?.data).toMatchObject({ email: person.email });
    const conflict = await store.appendToStream(domainName, [newEvent('Again', {})], { expectedRevision: 'no_stream' }).catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(WrongExpectedRevisionError);
    expect(conflict).toMatchObject({ streamId: domainName });
  });

  it('gives one key per person when processes make it at the same time', async () => {
    const { schema, personKeys } = await openLog();
    const others = Array.from({ length: 4 }, () => new PersonKeyStore(pool, secret, schema));
    const people = Array.from({ length: 20 }, (_, index) => ({ workspaceId: 'ws_race', email: `p${index}@example.com` }));
    const answers = await Promise.all([personKeys, ...others].map((store) => store.keysFor(people)));
    for (const { workspaceId, email } of people) {
      const ids = new Set(answers.map((answer) => answer.get(`${workspaceId}\u0000${email}`)?.keyId));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toEqual(expect.any(String));
    }
  });
  it('finds existing keys through the index with the plan cached while the table was empty, never by scanning it', async () => {
    const { schema } = await openLog();
    // PGlite never analyzes (no autovacuum): the generic plan a connection caches on an empty table
    // is the plan it keeps. A hash join against unnest() got a scan of every key there, 2.6 ms per
    // invitation at 11k keys. One connection that always uses the generic plan, autovacuum off.
    const planned = new pg.Pool({ connectionString: DATABASE_URL, max: 1, options: '-c plan_cache_mode=force_generic_plan' });
    try {
      await planned.query(`ALTER TABLE "${schema}".person_keys SET (autovacuum_enabled = false)`);
      const personKeys = new PersonKeyStore(planned, secret, schema);
      await personKeys.keysFor([{ workspaceId: 'ws_plan', email: 'first@example.com' }]);
      // The lookup of an append that stores new keys itself, prepared on the empty table as well.
      await personKeys.keysFor([{ workspaceId: 'ws_plan', email: 'second@example.com' }], { propose: true });
      await planned.query(`INSERT INTO "${schema}".person_keys (key_id, workspace_id, address_hash, sealed_key)
        SELECT 'k' || g, 'ws_plan', md5(g::text), 'sealed' FROM generate_series(1, 5000) g`);
      const { rows } = await planned.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'person_keys_for_%'`);
      expect(rows).toHaveLength(1);
      const plan = await planned.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE "${rows[0]?.name ?? ''}"('{ws_plan}', '{abc}', '{k_new}', '{sealed}')`);
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toContain('Index Scan using person_keys_current');
      expect(text).not.toContain('Seq Scan on person_keys');
      const [lookup] = (await planned.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'person_keys_live_%'`)).rows;
      const lookupPlan = (await planned.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE "${lookup?.name ?? ''}"('{ws_plan}', '{abc}')`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(lookupPlan).toContain('Index Scan using person_keys_current');
      expect(lookupPlan).not.toContain('Seq Scan on person_keys');
      // And it still answers: the key made first is found again after the growth.
      const again = await new PersonKeyStore(planned, secret, schema).keysFor([{ workspaceId: 'ws_plan', email: 'first@example.com' }]);
      expect(again.size).toBe(1);
    } finally {
      await planned.end();
    }
  });

  /** A key store on the real pool whose statements on the key table are counted. */
  const countedKeys = (schema: string, options: { deployment?: 'single-process' | 'multi-process' } = {}) => {
    const statements: string[] = [];
    const counting = Object.create(pool) as pg.Pool;
    counting.query = ((config: unknown, values?: unknown) => {
      const text = typeof config === 'string' ? config : (config as { text: string }).text;
      if (text.includes('person_keys')) statements.push(text);
      return (pool.query as (config: unknown, values?: unknown) => Promise<unknown>)(config, values);
    }) as pg.Pool['query'];
    return { statements, personKeys: new PersonKeyStore(counting, secret, schema, options) };
  };

  const liveKeys = async (schema: string, workspaceId: string): Promise<string[]> =>
    (await pool.query<{ key_id: string }>(`SELECT key_id FROM "${schema}".person_keys WHERE workspace_id = $1 AND sealed_key IS NOT NULL`, [workspaceId])).rows.map((row) => row.key_id);

  it('stores a new person\'s key in the transaction of the append that first uses it: no statement of its own, nothing left when that append fails', async () => {
    const { schema, raw } = await openLog();
    const { statements, personKeys } = countedKeys(schema);
    const store = new PersonalDataEventStore(raw, personKeys, null, { keysInAppend: true });
    await store.appendToStream('candidate-c1', [created()], { expectedRevision: 'no_stream' });
    // The lookup that found no key, and no statement to make one: the append's transaction stored it.
    expect(statements).toHaveLength(1);
    expect(statements[0]).not.toContain('INSERT');
    expect(await liveKeys(schema, person.workspaceId)).toHaveLength(1);
    expect((await store.readStream('candidate-c1'))[0]?.data).toMatchObject(person);
    // Another event for the same person uses the stored key: nothing asked, nothing made.
    await store.appendToStream('candidate-c1', [started()], { expectedRevision: 0 });
    expect(statements).toHaveLength(1);
    expect(await liveKeys(schema, person.workspaceId)).toHaveLength(1);

    // An append that fails (an event id the log holds already) leaves no key behind for its new person.
    const reused = created();
    await store.appendToStream('candidate-c2', [reused], { expectedRevision: 'no_stream' });
    const other = { ...reused, data: { ...reused.data, candidateId: 'c3', workspaceId: 'ws_failed', email: 'eve@example.com' } };
    await expect(store.appendToStream('candidate-c3', [other], { expectedRevision: 'no_stream' })).rejects.toThrow(/events_id_unique|duplicate key/);
    expect(await liveKeys(schema, 'ws_failed')).toEqual([]);
    // Asked again, it is appended with its key.
    await store.appendToStream('candidate-c3', [{ ...other, id: randomUUID() }], { expectedRevision: 'no_stream' });
    expect(await liveKeys(schema, 'ws_failed')).toHaveLength(1);
    expect((await store.readStream('candidate-c3'))[0]?.data).toMatchObject({ email: 'eve@example.com' });
  });

  it('with keys stored by the appends, an erased person invited again gets a new key: readable, the old events stay erased', async () => {
    const { schema, raw } = await openLog();
    const personKeys = new PersonKeyStore(pool, secret, schema, { deployment: 'single-process' });
    await personKeys.prepare();
    const store = new PersonalDataEventStore(raw, personKeys, null, { keysInAppend: true });
    await store.appendToStream('candidate-c1', [created()], { expectedRevision: 'no_stream' });
    expect(await destroyPerson(personKeys, person.workspaceId, person.email)).toBe(1);
    await store.appendToStream('candidate-c1', [started()], { expectedRevision: 0 });
    const events = await store.readStream('candidate-c1');
    expect(events.map((event) => (event.data.candidate as { email?: string } | undefined)?.email ?? event.data.email)).toEqual(['[erased]', person.email]);
    expect(await liveKeys(schema, person.workspaceId)).toHaveLength(1);
  });

  it('seals again with the key another process stored between its lookup and its append: one live key per person, the events readable', async () => {
    const { schema, raw, personKeys } = await openLog();
    const store = new PersonalDataEventStore(raw, personKeys, null, { keysInAppend: true });
    // This process looks up (no key: it proposes one), then another process makes the person's key.
    const proposed = await personKeys.keysFor([person], { propose: true });
    const theirs = await new PersonKeyStore(pool, secret, schema).keysFor([person]);
    expect(proposed.get(`${person.workspaceId}\u0000${person.email}`)?.keyId).not.toEqual(theirs.get(`${person.workspaceId}\u0000${person.email}`)?.keyId);

    await store.appendToStream('candidate-c1', [created()], { expectedRevision: 'no_stream' });
    expect(await liveKeys(schema, person.workspaceId)).toEqual([theirs.get(`${person.workspaceId}\u0000${person.email}`)?.keyId]);
    // Read by a process that knows no key yet: opened with the stored one.
    const fresh = new PersonalDataEventStore(raw, new PersonKeyStore(pool, secret, schema));
    expect((await fresh.readStream('candidate-c1'))[0]?.data).toMatchObject(person);
  });

  it('never seals with a key it proposed that another append stored and a deletion retired since: the insert of the proposal fails, and it seals again', async () => {
    const { schema, raw, personKeys } = await openLog();
    const store = new PersonalDataEventStore(raw, personKeys, null, { keysInAppend: true });
    const name = `${person.workspaceId}\u0000${person.email}`;
    // This process proposes a key; an append of its own (one whose answer this test does not wait
    // for) stores it, and the person's deletion retires it; the proposal is still held here.
    const proposal = (await personKeys.keysFor([person], { propose: true })).get(name);
    const [stored] = personKeys.proposedAmong([{ keyId: proposal?.keyId ?? '' }]);
    if (stored === undefined) throw new Error('no proposal was made');
    await pool.query(personKeys.insertStatement([stored]));
    await pool.query(personKeys.retireStatement([person]));

    await store.appendToStream('candidate-c1', [created()], { expectedRevision: 'no_stream' });
    const sealedWith = new Set<string>();
    sealedKeyIds((await raw.readStream('candidate-c1'))[0]?.data ?? {}, sealedWith);
    const current = await pool.query<{ key_id: string }>(`SELECT key_id FROM "${schema}".person_keys WHERE workspace_id = $1 AND sealed_key IS NOT NULL AND retired_at IS NULL`, [person.workspaceId]);
    expect([...sealedWith]).toEqual(current.rows.map((row) => row.key_id));
    expect(sealedWith.has(stored.keyId)).toBe(false);
  });

  it('two appends sealed with one proposal both commit: the second\'s insert fails, and it seals again with the key the first stored', async () => {
    const { schema, raw, personKeys } = await openLog();
    const store = new PersonalDataEventStore(raw, personKeys, null, { keysInAppend: true });
    const other = () => newEvent('CandidateCreated', { candidateId: 'c2', mode: 'live', ...person });
    await Promise.all([
      store.appendToStream('candidate-c1', [created()], { expectedRevision: 'no_stream' }),
      store.appendToStream('candidate-c2', [other()], { expectedRevision: 'no_stream' }),
    ]);
    const keyIds = new Set<string>();
    for (const streamId of ['candidate-c1', 'candidate-c2']) sealedKeyIds((await raw.readStream(streamId))[0]?.data ?? {}, keyIds);
    expect([...keyIds]).toEqual(await liveKeys(schema, person.workspaceId));
    for (const streamId of ['candidate-c1', 'candidate-c2']) expect((await store.readStream(streamId))[0]?.data).toMatchObject({ email: person.email });
  });

  it('as the only writer, proposes a new person\'s key without asking, and finds a key stored before it started', async () => {
    const { schema, raw } = await openLog();
    const before = { workspaceId: 'ws_1', email: 'known@example.com' };
    await new PersonKeyStore(pool, secret, schema).keysFor([before]);
    const { statements, personKeys } = countedKeys(schema, { deployment: 'single-process' });
    await personKeys.prepare();
    statements.length = 0;
    const store = new PersonalDataEventStore(raw, personKeys, null, { keysInAppend: true });

    await store.appendToStream('candidate-c1', [created()], { expectedRevision: 'no_stream' });
    expect(statements).toEqual([]);
    await store.appendToStream('candidate-k', [newEvent('CandidateCreated', { candidateId: 'k', mode: 'live', workspaceId: 'ws_1', email: before.email, firstName: 'K', surname: 'Nown' })], { expectedRevision: 'no_stream' });
    expect(statements).toHaveLength(1);
    expect(await liveKeys(schema, 'ws_1')).toHaveLength(2);
    expect((await store.readStream('candidate-k'))[0]?.data).toMatchObject({ email: before.email });
  });

  it('makes the keys of people announced by expectPeople while the caller reads: the append then asks the database nothing', async () => {
    const { schema, raw } = await openLog();
    const { statements, personKeys } = countedKeys(schema);
    const store = new PersonalDataEventStore(raw, personKeys);
    store.expectPeople([{ workspaceId: person.workspaceId, email: person.email }]);
    // Announced and appended at once: the append waits for the lookup in flight instead of making its own.
    await store.appendToStream('candidate-c1', [created()], { expectedRevision: 'no_stream' });
    expect(statements).toHaveLength(1);
    expect((await store.readStream('candidate-c1'))[0]?.data).toMatchObject(person);
    const [row] = (await pool.query(`SELECT count(*)::int AS keys FROM "${schema}".person_keys WHERE workspace_id = $1`, [person.workspaceId])).rows as { keys: number }[];
    expect(row?.keys).toBe(1);
  });

  it('looks up the keys of concurrent callers together: those who ask while a statement runs share the next one', async () => {
    const { schema } = await openLog();
    const { statements, personKeys } = countedKeys(schema);
    const people = Array.from({ length: 16 }, (_, index) => ({ workspaceId: 'ws_group', email: `g${index}@example.com` }));
    const answers = await Promise.all(people.map((one) => personKeys.keysFor([one])));
    expect(statements).toHaveLength(2);
    expect(new Set(answers.map((answer, index) => answer.get(`ws_group\u0000g${index}@example.com`)?.keyId)).size).toBe(16);
    // Asked again (cached): no statement.
    await Promise.all(people.map((one) => personKeys.keysFor([one])));
    expect(statements).toHaveLength(2);
  });

  it('hands inline projectors the clear values, in the same transaction, while the log keeps them sealed', async () => {
    const { raw, store, schema } = await openLog();
    await pool.query(`CREATE TABLE "${schema}".seen (id text PRIMARY KEY, email text, first_name text)`);
    const seenInPrepare: string[] = [];
    const projector: InlineProjector = {
      name: 'seen',
      prepare: (events) => {
        seenInPrepare.push(...events.map((event) => String(event.data.email)));
        return {
          statements: [],
          finish: (_rows, _head, recorded) => ({
            statements: recorded.map((event) => `INSERT INTO "${schema}".seen VALUES (${sqlLiteral(event.id)}, ${sqlLiteral(String(event.data.email))}, ${sqlLiteral(String(event.data.firstName))})`),
          }),
        };
      },
    };
    store.useInlineProjectors([projector]);
    const event = created();
    const result = await store.appendToStream('candidate-c1', [event], { expectedRevision: 'no_stream' });

    expect(result.inline).toEqual(['seen']);
    expect(seenInPrepare).toEqual([person.email]);
    expect((await pool.query(`SELECT id, email, first_name FROM "${schema}".seen`)).rows).toEqual([{ id: event.id, email: person.email, first_name: 'Ada' }]);
    expect(JSON.stringify((await raw.readStream('candidate-c1'))[0]?.data)).not.toContain(person.email);
  });
});
