import { createHash, createHmac } from 'node:crypto';
import { openAesGcm, sealAesGcm } from '#platform/crypto/aes-gcm.js';
import { pooledRandomBytes } from '#platform/crypto/random-pool.js';
import type pg from 'pg';

const CACHE_TTL_MS = 5_000;
/** Workspaces whose address-hash key is kept derived; past that the memo starts again. */
const WORKSPACE_KEYS_KEPT = 10_000;

/**
 * The workspace's snapshot key (state-snapshots.ts) is kept as the key of this pseudo-address (no
 * e-mail address holds a NUL): destroying any person's keys destroys it too.
 */
const SNAPSHOT_SCOPE = '\u0000state-snapshots';

/** How callers name a person in keysFor's answer (and, with the address hash, how the cache does). */
export const personKey = (workspaceId: string, email: string): string => `${workspaceId}\u0000${email}`;

interface Person {
  workspaceId: string;
  email: string;
}

interface LiveKey {
  keyId: string;
  key: Buffer;
}

interface WaitingLookup {
  people: readonly Person[];
  /** Each person's addressHash, computed once. */
  addressHashes: readonly string[];
  resolve: (keys: Map<string, LiveKey>) => void;
  reject: (error: unknown) => void;
}

interface Cached<T> {
  value: T;
  until: number;
}

/**
 * One AES-256 key per person (workspace and e-mail address), kept apart from the log in a table of
 * its own, each key sealed with AES-256-GCM under a key derived from the service secret. Destroying
 * a person's key (crypto-shredding) leaves their events in the log, hash chains intact, unreadable.
 * Keys are cached a few seconds: another process may read a destroyed key's data for that long.
 */
export class PersonKeyStore {
  private readonly sealingKey: Buffer;
  private readonly addressKey: Buffer;
  /** Each workspace's address-hash key, derived from addressKey (see workspaceAddressKey). */
  private readonly workspaceAddressKeys = new Map<string, Buffer>();
  private readonly byPerson = new Map<string, Cached<LiveKey>>();
  private readonly byId = new Map<string, Cached<Buffer | null>>();
  /** Lookups waiting for the one in progress to finish (see keysFor). */
  private readonly waiting: WaitingLookup[] = [];
  private lookingUp = false;
  /** The qualified table name (snapshot writes check it for recent erasures). */
  readonly table: string;

  constructor(private readonly pool: pg.Pool, serviceSecret: string, schema = 'public') {
    this.sealingKey = createHash('sha256').update(`person-keys:${serviceSecret}`).digest();
    this.addressKey = createHash('sha256').update(`address-hash:${serviceSecret}`).digest();
    this.table = `"${schema.replaceAll('"', '""')}".person_keys`;
  }

  async prepare(): Promise<void> {
    const ddl = `CREATE TABLE IF NOT EXISTS ${this.table} (key_id text PRIMARY KEY, workspace_id text NOT NULL, address_hash text NOT NULL,
        sealed_key text, created_at timestamptz NOT NULL DEFAULT now(), destroyed_at timestamptz);
      CREATE UNIQUE INDEX IF NOT EXISTS person_keys_live ON ${this.table} (workspace_id, address_hash) WHERE sealed_key IS NOT NULL;
      CREATE INDEX IF NOT EXISTS person_keys_destroyed ON ${this.table} (workspace_id, destroyed_at) WHERE sealed_key IS NULL`;
    await this.pool.query(ddl).catch(async (error: unknown) => {
      // Two processes creating the table at once: the loser finds it made.
      const found = await this.pool.query<{ name: string | null }>('SELECT to_regclass($1)::text AS name', [this.table]);
      if (found.rows[0]?.name == null) throw error;
    });
  }

  /** The keyed hash (HMAC under the workspace's key) that names an address without revealing it. */
  addressHash(workspaceId: string, addressOrDigest: string): string {
    return createHmac('sha256', this.workspaceAddressKey(workspaceId)).update(addressOrDigest).digest('hex');
  }

  /** Derived once per workspace, not at each of the three hashes an invitation makes. */
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
   * Each person's live key, made on first use: one statement for any number of people (two after a
   * race). Lookups asked for while one runs wait and go together in the next statement, so that
   * concurrent requests share statements and a second asker for a person gets the first's answer.
   */
  async keysFor(people: readonly Person[]): Promise<Map<string, LiveKey>> {
    const addressHashes = people.map(({ workspaceId, email }) => this.addressHash(workspaceId, email));
    // All cached: answered at once, even while a statement for others runs.
    const cached = people.every(({ workspaceId }, index) => (this.byPerson.get(personKey(workspaceId, addressHashes[index] ?? ''))?.until ?? 0) > Date.now());
    if (cached) return this.lookUp(people, addressHashes);
    return new Promise((resolve, reject) => {
      this.waiting.push({ people, addressHashes, resolve, reject });
      if (!this.lookingUp) void this.lookUpWaiting();
    });
  }

  private async lookUpWaiting(): Promise<void> {
    this.lookingUp = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0);
        try {
          const found = await this.lookUp(group.flatMap(({ people }) => people), group.flatMap(({ addressHashes }) => addressHashes));
          for (const { people, resolve } of group) resolve(new Map(people.flatMap(({ workspaceId, email }) => {
            const key = found.get(personKey(workspaceId, email));
            return key === undefined ? [] : [[personKey(workspaceId, email), key] as const];
          })));
        } catch (error) {
          // One statement for several callers failed: each is tried alone, so only the one at fault fails.
          if (group.length === 1) group[0]?.reject(error);
          else for (const { people, addressHashes, resolve, reject } of group) await this.lookUp(people, addressHashes).then(resolve, reject);
        }
      }
    } finally {
      this.lookingUp = false;
    }
  }

  private async lookUp(people: readonly Person[], addressHashes: readonly string[]): Promise<Map<string, LiveKey>> {
    const now = Date.now();
    const found = new Map<string, LiveKey>();
    const missing = new Map<string, { workspaceId: string; addressHash: string }>();
    for (const [index, { workspaceId, email }] of people.entries()) {
      const person = personKey(workspaceId, email);
      const addressHash = addressHashes[index] ?? '';
      const cached = this.byPerson.get(personKey(workspaceId, addressHash));
      if (cached !== undefined && cached.until > now) found.set(person, cached.value);
      else missing.set(person, { workspaceId, addressHash });
    }
    if (missing.size === 0) return found;
    const wanted = [...missing.values()];
    type Row = { key_id: string; workspace_id: string; address_hash: string; sealed_key: string };
    const params = [wanted.map((person) => person.workspaceId), wanted.map((person) => person.addressHash)];
    // One round trip: make the keys that are missing and return them with the ones that exist (the
    // SELECT sees the snapshot before the INSERT, the INSERT returns only what it made).
    const text = `WITH wanted AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(workspace_id, address_hash, key_id, sealed_key)),
       existing AS (SELECT t.key_id, t.workspace_id, t.address_hash, t.sealed_key FROM wanted w
         CROSS JOIN LATERAL (SELECT k.key_id, k.workspace_id, k.address_hash, k.sealed_key FROM ${this.table} k
           WHERE k.workspace_id = w.workspace_id AND k.address_hash = w.address_hash AND k.sealed_key IS NOT NULL OFFSET 0) t),
       made AS (INSERT INTO ${this.table} (key_id, workspace_id, address_hash, sealed_key)
         SELECT key_id, workspace_id, address_hash, sealed_key FROM wanted w
         WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.workspace_id = w.workspace_id AND e.address_hash = w.address_hash)
         ON CONFLICT DO NOTHING RETURNING key_id, workspace_id, address_hash, sealed_key)
       SELECT * FROM existing UNION ALL SELECT * FROM made`;
    // Named: planned once per connection (PGlite plans in WebAssembly; a new connection deallocates first).
    let rows = (await this.pool.query<Row>({
      name: `person_keys_for_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`,
      text,
      values: [...params, wanted.map(() => pooledRandomBytes(12).toString('base64url')), wanted.map(() => this.seal(pooledRandomBytes(32)))],
    })).rows;
    if (rows.length < wanted.length) {
      // Another process made some of them after this statement's snapshot: they are committed now.
      rows = (await this.pool.query<Row>(
        `SELECT key_id, workspace_id, address_hash, sealed_key FROM ${this.table}
         WHERE (workspace_id, address_hash) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND sealed_key IS NOT NULL`,
        params,
      )).rows;
    }
    const byHash = new Map(rows.map((row) => [personKey(row.workspace_id, row.address_hash), row]));
    for (const [person, { workspaceId, addressHash }] of missing) {
      const row = byHash.get(personKey(workspaceId, addressHash));
      if (row === undefined) throw new Error('a person key vanished while it was being made');
      const value = { keyId: row.key_id, key: this.open(row.sealed_key) };
      found.set(person, value);
      this.byPerson.set(personKey(workspaceId, addressHash), { value, until: now + CACHE_TTL_MS });
      this.byId.set(value.keyId, { value: value.key, until: now + CACHE_TTL_MS });
    }
    return found;
  }

  /** Keys by id; null for a destroyed (or unknown) key. */
  async load(keyIds: Iterable<string>): Promise<Map<string, Buffer | null>> {
    const now = Date.now();
    const found = new Map<string, Buffer | null>();
    const missing: string[] = [];
    for (const keyId of keyIds) {
      const cached = this.byId.get(keyId);
      if (cached !== undefined && cached.until > now) found.set(keyId, cached.value);
      else missing.push(keyId);
    }
    if (missing.length === 0) return found;
    const rows = await this.pool.query<{ key_id: string; sealed_key: string | null }>(`SELECT key_id, sealed_key FROM ${this.table} WHERE key_id = ANY($1)`, [missing]);
    const sealed = new Map(rows.rows.map((row) => [row.key_id, row.sealed_key]));
    for (const keyId of missing) {
      const row = sealed.get(keyId);
      const key = row == null ? null : this.open(row);
      found.set(keyId, key);
      this.byId.set(keyId, { value: key, until: now + CACHE_TTL_MS });
    }
    return found;
  }

  /**
   * The workspace's key for snapshots of its streams' folds, made on first use. It goes with the
   * first person's keys destroyed in the workspace, and the snapshots sealed with it become unreadable.
   */
  async snapshotKey(workspaceId: string): Promise<LiveKey> {
    const found = (await this.keysFor([{ workspaceId, email: SNAPSHOT_SCOPE }])).get(personKey(workspaceId, SNAPSHOT_SCOPE));
    if (found === undefined) throw new Error('no snapshot key was made');
    return found;
  }

  /**
   * Destroys every key of the person, and the workspace's snapshot key (its snapshots may hold the
   * person's address in clear); returns how many of the person's keys went.
   */
  async destroy(workspaceId: string, email: string): Promise<number> {
    const addressHash = this.addressHash(workspaceId, email);
    const scopeHash = this.addressHash(workspaceId, SNAPSHOT_SCOPE);
    const result = await this.pool.query<{ key_id: string; address_hash: string }>(
      `UPDATE ${this.table} SET sealed_key = NULL, destroyed_at = now()
       WHERE workspace_id = $1 AND address_hash = ANY($2::text[]) AND sealed_key IS NOT NULL RETURNING key_id, address_hash`,
      [workspaceId, [addressHash, scopeHash]],
    );
    this.byPerson.delete(personKey(workspaceId, addressHash));
    this.byPerson.delete(personKey(workspaceId, scopeHash));
    for (const row of result.rows) this.byId.set(row.key_id, { value: null, until: Number.MAX_SAFE_INTEGER });
    return result.rows.filter((row) => row.address_hash === addressHash).length;
  }

  private seal(key: Buffer): string {
    return sealAesGcm(this.sealingKey, key);
  }

  private open(sealed: string): Buffer {
    return openAesGcm(this.sealingKey, sealed);
  }
}
