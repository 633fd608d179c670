import { createHash, createHmac } from 'node:crypto';
import { openAesGcm, sealAesGcm } from '#platform/crypto/aes-gcm.js';
import { pooledRandomBytes } from '#platform/crypto/random-pool.js';
import type pg from 'pg';
import { type Deployment, StartRefused } from '#platform';
import { statementName } from '../postgres/prepared-statement.js';
import { sqlLiteral } from '../postgres/sql-literal.js';
import { migrateAuditTables } from '../migrations/audit-tables.migrations.js';

/**
 * Keys read from the table are kept this long: another process may open a destroyed key's data that long,
 * never seal with a retired or destroyed key (every append checks in its transaction: currentCheck).
 */
const CACHE_TTL_MS = 5_000;
/** Keys kept by person and by id, at most (expired ones are dropped first, then the oldest). */
const CACHE_MAX_ENTRIES = 100_000;
/** A proposed key no append has stored within this long is dropped (see propose: a later one makes another). */
const PROPOSAL_TTL_MS = 60_000;
/** One current key per person: an append proposing a second, or sealed with a key retired since (currentCheck), fails on it. */
const CURRENT_KEY_INDEX = 'person_keys_current';
/** Beyond this many live keys the only writer stops keeping their prefixes (every new person is looked up). */
const MAX_KNOWN_PEOPLE = 5_000_000;
/** Workspaces whose address-hash key is kept derived; past that the memo starts again. */
const WORKSPACE_KEYS_KEPT = 10_000;

/** The workspace's snapshot key is this pseudo-address's (no address holds a NUL); any person's erasure destroys it. */
const SNAPSHOT_SCOPE = '\u0000state-snapshots';

/** How callers name a person in keysFor's answer (and, with the address hash, how the cache does). */
export const personKey = (workspaceId: string, email: string): string => `${workspaceId}\u0000${email}`;

export interface Person {
  workspaceId: string;
  email: string;
}

interface LiveKey {
  keyId: string;
  key: Buffer;
}

/** A key made in this process for a person the table had no live key for, to be stored by the append that first uses it. */
export interface ProposedKey extends LiveKey {
  workspaceId: string;
  addressHash: string;
  sealed: string;
  at: number;
}

interface WaitingLookup {
  people: readonly Person[];
  propose: boolean;
  /** Each person's addressHash, computed once. */
  addressHashes: readonly string[];
  resolve: (keys: Map<string, LiveKey>) => void;
  reject: (error: unknown) => void;
}

interface KeyRow {
  key_id: string;
  workspace_id: string;
  address_hash: string;
  sealed_key: string;
}

/** The first 28 bits of an address hash (see knownPeople): a small integer, as PostgreSQL computes it in learnPeople. */
const hashPrefix = (addressHash: string): number => Number.parseInt(addressHash.slice(0, 7), 16);

interface Cached<T> {
  value: T;
  until: number;
}

/** A map of entries that expire, bounded: past `max` the expired entries go, then the oldest. */
class ExpiringMap<K, V> {
  private readonly entries = new Map<K, Cached<V>>();

  constructor(private readonly max: number) {}

  get(key: K, now: number): V | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.until > now ? entry.value : undefined;
  }

  set(key: K, value: V, until: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, until });
    if (this.entries.size <= this.max) return;
    const now = Date.now();
    for (const [old, entry] of this.entries) if (entry.until <= now) this.entries.delete(old);
    for (const old of this.entries.keys()) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(old);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}

/**
 * One AES-256 key per person (workspace and address) in a table apart from the log, each sealed with
 * AES-256-GCM under a key from the service secret. Destroying it (crypto-shredding) leaves the events,
 * chains intact, unreadable. Cached a few seconds: another process may read a destroyed key's data that long.
 */
export class PersonKeyStore {
  private readonly sealingKey: Buffer;
  private readonly addressKey: Buffer;
  /** Each workspace's address-hash key, derived once, not at each of the three hashes an invitation makes. */
  private readonly workspaceAddressKeys = new Map<string, Buffer>();
  /** Current keys by person (workspace and address hash). */
  private readonly byPerson = new ExpiringMap<string, LiveKey>(CACHE_MAX_ENTRIES);
  /** Keys by id, null for a destroyed one (kept as long as any: a destroyed key never comes back). */
  private readonly byId = new ExpiringMap<string, Buffer | null>(CACHE_MAX_ENTRIES);
  /** Proposed keys not yet known to be stored, by person (address hash) and by key id, oldest first. */
  private readonly proposed = new Map<string, ProposedKey>();
  private readonly proposedById = new Map<string, ProposedKey>();
  private readonly waiting: WaitingLookup[] = [];
  private lookingUp = false;
  /** Single-process (no other process stores keys): the address-hash prefix of every person with a live key; null: not known. */
  private knownPeople: Set<number> | null = null;
  /** The qualified table name (snapshot writes check it for recent erasures). */
  readonly table: string;
  private readonly schemaName: string;
  /** The function an append calls to check, in its own transaction, that the keys it sealed with are current. */
  private readonly checkFunction: string;

  /** `single-process` (the embedded store): no other process stores keys in this table while this one runs. */
  constructor(private readonly pool: pg.Pool, serviceSecret: string, private readonly schema = 'public', private readonly options: { deployment?: Deployment } = {}) {
    this.sealingKey = createHash('sha256').update(`person-keys:${serviceSecret}`).digest();
    this.addressKey = createHash('sha256').update(`address-hash:${serviceSecret}`).digest();
    this.schemaName = `"${schema.replaceAll('"', '""')}"`;
    this.table = `${this.schemaName}.person_keys`;
    this.checkFunction = `${this.schemaName}.person_keys_assert_current`;
  }

  /** The name PostgreSQL gives the table's primary key (a proposal stored twice fails on it). */
  private readonly primaryKey = 'person_keys_pkey';

  /** Runs the audit migrations (they make the table), if not yet. */
  async prepare(): Promise<void> {
    await migrateAuditTables(this.pool, this.schema);
    if (this.options.deployment === 'single-process') await this.learnPeople();
  }

  /** Refuses a secret that opens no stored key (one is tried): with another, every write about a known person would fail. */
  async assertOwnSecret(): Promise<void> {
    const { rows } = await this.pool.query<{ sealed_key: string }>(`SELECT sealed_key FROM ${this.table} WHERE sealed_key IS NOT NULL LIMIT 1`);
    try {
      if (rows[0] !== undefined) this.open(rows[0].sealed_key);
    } catch {
      throw new StartRefused('refusing to start: the database was written with another service secret (its person keys do not open with this one); '
        + 'start with the SERVICE_SECRET it was written with, or the DATA_DIR holding that service-secret file');
    }
  }

  private async learnPeople(): Promise<void> {
    const { rows } = await this.pool.query<{ prefix: number }>(
      `SELECT ('x' || substr(address_hash, 1, 7))::bit(28)::int AS prefix FROM ${this.table} WHERE sealed_key IS NOT NULL AND retired_at IS NULL`,
    );
    this.knownPeople = rows.length > MAX_KNOWN_PEOPLE ? null : new Set(rows.map((row) => row.prefix));
  }

  private knowPerson(addressHash: string): void {
    this.knownPeople?.add(hashPrefix(addressHash));
    if (this.knownPeople !== null && this.knownPeople.size > MAX_KNOWN_PEOPLE) this.knownPeople = null;
  }

  /** False only when the person surely has no live key: proposed without a statement (a shared prefix costs one). */
  private mayHaveKey(addressHash: string): boolean {
    return this.knownPeople === null || this.knownPeople.has(hashPrefix(addressHash));
  }

  /** The keyed hash (HMAC under the workspace's key) that names an address without revealing it. */
  addressHash(workspaceId: string, addressOrDigest: string): string {
    return createHmac('sha256', this.workspaceAddressKey(workspaceId)).update(addressOrDigest).digest('hex');
  }

  private workspaceAddressKey(workspaceId: string): Buffer {
    let key = this.workspaceAddressKeys.get(workspaceId);
    if (key === undefined) {
      key = createHmac('sha256', this.addressKey).update(workspaceId).digest();
      if (this.workspaceAddressKeys.size >= WORKSPACE_KEYS_KEPT) this.workspaceAddressKeys.clear();
      this.workspaceAddressKeys.set(workspaceId, key);
    }
    return key;
  }

  /**
   * Each person's live key, made on first use: one statement for any number of people (two after a race);
   * lookups asked for while one runs go together in the next. With `propose` it only looks: a person
   * without a live key gets a ProposedKey (the same for every asker until stored or dropped), stored by the
   * append that uses it (insertStatement). A key another process stored meanwhile fails that append on the
   * live-key index (isConflict); the caller withdraws the proposal and asks again.
   */
  async keysFor(people: readonly Person[], options: { propose?: boolean } = {}): Promise<Map<string, LiveKey>> {
    const propose = options.propose === true;
    const addressHashes = people.map(({ workspaceId, email }) => this.addressHash(workspaceId, email));
    // All known: answered at once, even while a statement for others runs.
    const now = Date.now();
    const known = people.every(({ workspaceId }, index) => {
      const person = personKey(workspaceId, addressHashes[index] ?? '');
      return this.byPerson.get(person, now) !== undefined || (propose && (this.proposed.has(person) || !this.mayHaveKey(addressHashes[index] ?? '')));
    });
    if (known) return this.lookUp(people, addressHashes, propose);
    return new Promise((resolve, reject) => {
      this.waiting.push({ people, propose, addressHashes, resolve, reject });
      if (!this.lookingUp) void this.lookUpWaiting();
    });
  }

  /** The proposed keys among these (not yet stored): what the append must store with its events. */
  proposedAmong(keys: Iterable<{ keyId: string }>): ProposedKey[] {
    const found = new Set<ProposedKey>();
    for (const { keyId } of keys) {
      const proposal = this.proposedById.get(keyId);
      if (proposal !== undefined) found.add(proposal);
    }
    return [...found];
  }

  /**
   * Stores proposed keys. One another append of this process stored first fails it (isConflict): sealed
   * again with the key as it stands. Checking every proposal cost a statement per append (3× slower, bench).
   */
  insertStatement(keys: readonly ProposedKey[]): string {
    const rows = keys.map((key) => `(${[key.keyId, key.workspaceId, key.addressHash, key.sealed].map(sqlLiteral).join(', ')})`);
    return `INSERT INTO ${this.table} (key_id, workspace_id, address_hash, sealed_key) VALUES ${rows.join(', ')}`;
  }

  /** The append that held insertStatement committed: the keys are live ones now. */
  stored(keys: readonly ProposedKey[]): void {
    const now = Date.now();
    for (const key of keys) {
      this.dropProposal(key);
      this.remember(key.workspaceId, key.addressHash, { keyId: key.keyId, key: key.key }, now);
    }
  }

  /** Another live key stood in the way (isConflict): the next lookup finds it instead. */
  withdraw(keys: readonly ProposedKey[]): void {
    for (const key of keys) this.dropProposal(key);
  }

  /** An append failed on a key: one it proposed is stored or another is current, or one it sealed with is no longer current. */
  isConflict(error: unknown): boolean {
    return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505' && 'constraint' in error
      && (error.constraint === CURRENT_KEY_INDEX || error.constraint === this.primaryKey);
  }

  private dropProposal(key: ProposedKey): void {
    const person = personKey(key.workspaceId, key.addressHash);
    if (this.proposed.get(person) === key) this.proposed.delete(person);
    this.proposedById.delete(key.keyId);
  }

  private propose(workspaceId: string, addressHash: string, now: number): ProposedKey {
    for (const old of this.proposed.values()) {
      if (now - old.at <= PROPOSAL_TTL_MS) break;
      this.dropProposal(old);
    }
    const person = personKey(workspaceId, addressHash);
    const existing = this.proposed.get(person);
    if (existing !== undefined) return existing;
    const key = pooledRandomBytes(32);
    const proposal = { keyId: pooledRandomBytes(12).toString('base64url'), key, workspaceId, addressHash, sealed: this.seal(key), at: now };
    this.proposed.set(person, proposal);
    this.proposedById.set(proposal.keyId, proposal);
    return proposal;
  }

  private async lookUpWaiting(): Promise<void> {
    this.lookingUp = true;
    try {
      while (this.waiting.length > 0) {
        const waiting = this.waiting.splice(0);
        for (const propose of [false, true]) {
          const group = waiting.filter((lookup) => lookup.propose === propose);
          if (group.length > 0) await this.answer(group, propose);
        }
      }
    } finally {
      this.lookingUp = false;
    }
  }

  private async answer(group: WaitingLookup[], propose: boolean): Promise<void> {
    try {
      const found = await this.lookUp(group.flatMap(({ people }) => people), group.flatMap(({ addressHashes }) => addressHashes), propose);
      for (const { people, resolve } of group) resolve(new Map(people.flatMap(({ workspaceId, email }) => {
        const key = found.get(personKey(workspaceId, email));
        return key === undefined ? [] : [[personKey(workspaceId, email), key] as const];
      })));
    } catch (error) {
      // One statement for several callers failed: each is tried alone, so only the one at fault fails.
      if (group.length === 1) group[0]?.reject(error);
      else for (const { people, addressHashes, resolve, reject } of group) await this.lookUp(people, addressHashes, propose).then(resolve, reject);
    }
  }

  private async lookUp(people: readonly Person[], addressHashes: readonly string[], propose: boolean): Promise<Map<string, LiveKey>> {
    const now = Date.now();
    const found = new Map<string, LiveKey>();
    const missing = new Map<string, { workspaceId: string; addressHash: string }>();
    for (const [index, { workspaceId, email }] of people.entries()) {
      const person = personKey(workspaceId, email);
      const addressHash = addressHashes[index] ?? '';
      const cached = this.byPerson.get(personKey(workspaceId, addressHash), now);
      const proposal = propose ? this.proposed.get(personKey(workspaceId, addressHash)) : undefined;
      if (cached !== undefined) found.set(person, cached);
      else if (proposal !== undefined) found.set(person, proposal);
      else if (propose && !this.mayHaveKey(addressHash)) found.set(person, this.propose(workspaceId, addressHash, now));
      else missing.set(person, { workspaceId, addressHash });
    }
    if (missing.size === 0) return found;
    const wanted = [...missing.values()];
    const params = [wanted.map((person) => person.workspaceId), wanted.map((person) => person.addressHash)];
    if (propose) {
      const live = this.byHash(await this.liveKeys(params));
      for (const [person, { workspaceId, addressHash }] of missing) {
        const row = live.get(personKey(workspaceId, addressHash));
        found.set(person, row === undefined ? this.propose(workspaceId, addressHash, now) : this.rememberRow(row, now));
      }
      return found;
    }
    // One round trip: make the keys that are missing and return them with the ones that exist (the
    // SELECT sees the snapshot before the INSERT, the INSERT returns only what it made).
    const text = `WITH wanted AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(workspace_id, address_hash, key_id, sealed_key)),
       existing AS (SELECT t.key_id, t.workspace_id, t.address_hash, t.sealed_key FROM wanted w
         CROSS JOIN LATERAL (SELECT k.key_id, k.workspace_id, k.address_hash, k.sealed_key FROM ${this.table} k
           WHERE k.workspace_id = w.workspace_id AND k.address_hash = w.address_hash AND k.sealed_key IS NOT NULL AND k.retired_at IS NULL OFFSET 0) t),
       made AS (INSERT INTO ${this.table} (key_id, workspace_id, address_hash, sealed_key)
         SELECT key_id, workspace_id, address_hash, sealed_key FROM wanted w
         WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.workspace_id = w.workspace_id AND e.address_hash = w.address_hash)
         ON CONFLICT DO NOTHING RETURNING key_id, workspace_id, address_hash, sealed_key)
       SELECT * FROM existing UNION ALL SELECT * FROM made`;
    let rows = (await this.pool.query<KeyRow>({
      name: statementName('person_keys_for', text),
      text,
      values: [...params, wanted.map(() => pooledRandomBytes(12).toString('base64url')), wanted.map(() => this.seal(pooledRandomBytes(32)))],
    })).rows;
    // Another process made some of them after this statement's snapshot: they are committed now.
    if (rows.length < wanted.length) rows = await this.liveKeys(params);
    const made = this.byHash(rows);
    for (const [person, { workspaceId, addressHash }] of missing) {
      const row = made.get(personKey(workspaceId, addressHash));
      if (row === undefined) throw new Error('a person key vanished while it was being made');
      found.set(person, this.rememberRow(row, now));
    }
    return found;
  }

  /** The live keys of these people ([workspace ids], [address hashes]), found through the live-key index whatever plan is cached. */
  private async liveKeys(params: string[][]): Promise<KeyRow[]> {
    const text = `SELECT t.key_id, t.workspace_id, t.address_hash, t.sealed_key FROM unnest($1::text[], $2::text[]) AS w(workspace_id, address_hash)
      CROSS JOIN LATERAL (SELECT k.key_id, k.workspace_id, k.address_hash, k.sealed_key FROM ${this.table} k
        WHERE k.workspace_id = w.workspace_id AND k.address_hash = w.address_hash AND k.sealed_key IS NOT NULL AND k.retired_at IS NULL OFFSET 0) t`;
    return (await this.pool.query<KeyRow>({ name: statementName('person_keys_live', text), text, values: params })).rows;
  }

  private byHash(rows: readonly KeyRow[]): Map<string, KeyRow> {
    return new Map(rows.map((row) => [personKey(row.workspace_id, row.address_hash), row]));
  }

  private rememberRow(row: KeyRow, now: number): LiveKey {
    return this.remember(row.workspace_id, row.address_hash, { keyId: row.key_id, key: this.open(row.sealed_key) }, now);
  }

  private remember(workspaceId: string, addressHash: string, value: LiveKey, now: number): LiveKey {
    this.knowPerson(addressHash);
    this.byPerson.set(personKey(workspaceId, addressHash), value, now + CACHE_TTL_MS);
    this.byId.set(value.keyId, value.key, now + CACHE_TTL_MS);
    return value;
  }

  /** Keys by id; null for a destroyed (or unknown) key. */
  async load(keyIds: Iterable<string>): Promise<Map<string, Buffer | null>> {
    const now = Date.now();
    const found = new Map<string, Buffer | null>();
    const missing: string[] = [];
    for (const keyId of keyIds) {
      const cached = this.byId.get(keyId, now);
      if (cached !== undefined) found.set(keyId, cached);
      else missing.push(keyId);
    }
    if (missing.length === 0) return found;
    const rows = await this.pool.query<{ key_id: string; sealed_key: string | null; retired: boolean }>(
      `SELECT key_id, sealed_key, retired_at IS NOT NULL AS retired FROM ${this.table} WHERE key_id = ANY($1)`, [missing],
    );
    const byKeyId = new Map(rows.rows.map((row) => [row.key_id, row]));
    for (const keyId of missing) {
      const row = byKeyId.get(keyId);
      const key = row?.sealed_key == null ? null : this.open(row.sealed_key);
      found.set(keyId, key);
      // A retired key (its person deleted) is about to be destroyed by the erasure, in any process:
      // it is read afresh every time, so nothing here opens its data once it is gone.
      if (key === null) this.byId.set(keyId, null, Number.MAX_SAFE_INTEGER);
      else if (row?.retired !== true) this.byId.set(keyId, key, now + CACHE_TTL_MS);
    }
    return found;
  }

  /** The workspace's snapshot key, made on first use; destroyed with any person's keys in the workspace. */
  async snapshotKey(workspaceId: string): Promise<LiveKey> {
    const found = (await this.keysFor([{ workspaceId, email: SNAPSHOT_SCOPE }])).get(personKey(workspaceId, SNAPSHOT_SCOPE));
    if (found === undefined) throw new Error('no snapshot key was made');
    return found;
  }

  /** In the append's transaction: a stored key it sealed with, retired or destroyed since cached, fails it (isConflict). */
  currentCheck(keyIds: readonly string[]): string {
    return `SELECT ${this.checkFunction}(ARRAY[${keyIds.map(sqlLiteral).join(', ')}]::text[])`;
  }

  /**
   * Retires the people's current keys in the transaction of the append that deletes them: no later
   * event is sealed with them (currentCheck), so the erasure destroys exactly the deleted people's data.
   */
  retireStatement(people: readonly Person[]): string {
    const rows = people.map(({ workspaceId, email }) => `(${sqlLiteral(workspaceId)}, ${sqlLiteral(this.addressHash(workspaceId, email))})`);
    return `UPDATE ${this.table} k SET retired_at = now() FROM (VALUES ${rows.join(', ')}) AS w(workspace_id, address_hash)
      WHERE k.workspace_id = w.workspace_id AND k.address_hash = w.address_hash AND k.sealed_key IS NOT NULL AND k.retired_at IS NULL`;
  }

  /** Whether any of these people's keys was retired (their deletion) at or after `sinceMs`. */
  async retiredSince(workspaceId: string, emails: readonly string[], sinceMs: number): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM ${this.table} WHERE workspace_id = $1 AND retired_at >= to_timestamp($3::double precision / 1000) AND address_hash = ANY($2::text[]) LIMIT 1`,
      [workspaceId, emails.map((email) => this.addressHash(workspaceId, email)), sinceMs],
    );
    return rows.length > 0;
  }

  /** Retires the people's current keys by a statement of its own (a log whose appends run no statements). */
  async retire(people: readonly Person[]): Promise<void> {
    if (people.length === 0) return;
    await this.pool.query(this.retireStatement(people));
    this.forget(people);
  }

  /** Drops what this process holds of the people's current keys: the next use looks them up. */
  forget(people: readonly Person[]): void {
    const now = Date.now();
    for (const { workspaceId, email } of people) {
      const person = personKey(workspaceId, this.addressHash(workspaceId, email));
      const cached = this.byPerson.get(person, now);
      if (cached !== undefined) this.byId.delete(cached.keyId);
      this.dropPerson(person);
    }
  }

  /** `person`: workspace and address hash. */
  private dropPerson(person: string): void {
    this.byPerson.delete(person);
    const proposal = this.proposed.get(person);
    if (proposal !== undefined) this.dropProposal(proposal);
  }

  /**
   * Destroys these keys of a workspace (those that sealed a deleted person's events), and the workspace's
   * snapshot key (its snapshots may hold the person's address in clear); returns how many of these keys
   * went (0 when they already had).
   */
  async destroyKeys(workspaceId: string, keyIds: readonly string[]): Promise<number> {
    const scopeHash = this.addressHash(workspaceId, SNAPSHOT_SCOPE);
    const result = await this.pool.query<{ key_id: string; address_hash: string }>(
      `UPDATE ${this.table} SET sealed_key = NULL, destroyed_at = now(), retired_at = coalesce(retired_at, now())
       WHERE workspace_id = $1 AND (address_hash = $2::text OR key_id = ANY($3::text[]) OR address_hash = $4) AND sealed_key IS NOT NULL
       RETURNING key_id, address_hash`,
      [workspaceId, null, [...keyIds], scopeHash],
    );
    for (const row of result.rows) {
      this.dropPerson(personKey(workspaceId, row.address_hash));
      this.byId.set(row.key_id, null, Number.MAX_SAFE_INTEGER);
    }
    this.dropPerson(personKey(workspaceId, scopeHash));
    return result.rows.filter((row) => row.address_hash !== scopeHash).length;
  }

  private seal(key: Buffer): string {
    return sealAesGcm(this.sealingKey, key);
  }

  private open(sealed: string): Buffer {
    return openAesGcm(this.sealingKey, sealed);
  }
}
