import type { Redis } from 'ioredis';
import { replyArray, replyInteger, replyString } from '../redis/lua-script.js';
import { ABANDON, BEGIN, COMPLETE, FORGET } from './idempotency-scripts.js';

export interface IdempotencyScope {
  workspaceId: string;
  key: string;
}

export interface IdempotentRequest {
  mode: 'live' | 'sandbox';
  fingerprint: string;
}

/** Only 200 answers are kept and replayed (product decisions, Idempotency keys). */
export interface StoredResponse {
  status: 200;
  body: unknown;
}

export type IdempotencyBegin =
  | { kind: 'started' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'reused' }
  | { kind: 'in_progress'; retryAfterSeconds: number };

/** Before any request has completed: what an invitation request usually takes, with room to spare. */
const DEFAULT_DURATION_MS = 1000;

/**
 * Retry-After for a request in progress: twice the average duration of completed requests, from when
 * it started, at least 1 s and never past the lock's expiry (a crash bound, a minute, when a request
 * takes milliseconds to seconds).
 */
const expectedWaitSeconds = (lockRemainingMs: number, elapsedMs: number, averageMs: number, lockSeconds: number): number => {
  const expectedMs = 2 * (averageMs > 0 ? averageMs : DEFAULT_DURATION_MS);
  const waitMs = elapsedMs >= 0 ? expectedMs - elapsedMs : expectedMs;
  // PTTL is negative only when the marker has no expiry, which begin never leaves.
  const ceilingMs = lockRemainingMs > 0 ? lockRemainingMs : lockSeconds * 1000;
  return Math.max(1, Math.ceil(Math.min(waitMs, ceilingMs) / 1000));
};

/**
 * Idempotency records in Redis, shared by every API process; keys belong to the workspace (API
 * document 4.3, rule 4). A record and its workspace's average duration share the workspace's hash tag
 * (`idem:{ws}:key`, `idem:{ws}duration-ms`), as a script on a Redis Cluster needs. Releases before the
 * tag wrote `idem:ws:key`: for one record lifetime after a process starts, a request looks there
 * first, never writing there (docs/architecture.md, Redis keys).
 */
export class RedisIdempotencyStore {
  private readonly prefix: string;
  private readonly ttlSeconds: number;
  private readonly lockSeconds: number;
  /** Records written by a release before hash tags have all expired by then (Date.now()). */
  private readonly legacyReadsUntil: number;

  /**
   * `ttlSeconds`: how long a completed answer is replayed (API document: 24 hours); `lockSeconds`: how
   * long a running request holds the key (a crashed request frees it then).
   */
  constructor(private readonly redis: Redis, { prefix = 'idempotency:', ttlSeconds = 86_400, lockSeconds = 60 } = {}) {
    this.prefix = prefix;
    this.ttlSeconds = ttlSeconds;
    this.lockSeconds = lockSeconds;
    for (const [name, value] of [['ttlSeconds', this.ttlSeconds], ['lockSeconds', this.lockSeconds]] as const) {
      if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
    }
    if (this.prefix.includes('{')) throw new Error('the idempotency prefix must not hold a brace: the workspace is the hash tag');
    this.legacyReadsUntil = Date.now() + this.ttlSeconds * 1000;
  }

  /** Claims the key for this request, or says why the request must not run. */
  async begin(scope: IdempotencyScope, request: IdempotentRequest): Promise<IdempotencyBegin> {
    const legacy = await this.legacyBegin(scope, request);
    if (legacy !== null) return legacy;
    const reply = replyArray(
      await BEGIN.run(this.redis, [this.redisKey(scope), this.durationKey(scope)], [request.fingerprint, request.mode, this.lockSeconds]),
    );
    const kind = replyString(reply[0]);
    switch (kind) {
      case 'started':
      case 'reused':
        return { kind };
      case 'replay':
        return { kind, response: { status: 200, body: JSON.parse(replyString(reply[2])) as unknown } };
      case 'in_progress':
        return { kind, retryAfterSeconds: expectedWaitSeconds(replyInteger(reply[1]), replyInteger(reply[2]), replyInteger(reply[3]), this.lockSeconds) };
      default:
        throw new Error(`unexpected idempotency reply: ${kind}`);
    }
  }

  /** Keeps the answer for replay. False when the key is no longer this request's to fill. */
  async complete(scope: IdempotencyScope, request: IdempotentRequest, response: StoredResponse): Promise<boolean> {
    const stored = await COMPLETE.run(
      this.redis,
      [this.redisKey(scope), this.durationKey(scope)],
      [request.fingerprint, request.mode, response.status, JSON.stringify(response.body) ?? 'null', this.ttlSeconds],
    );
    return replyInteger(stored) === 1;
  }

  /** Frees the key after a refused request; given the request, only its own marker (another may hold the key now). */
  async abandon(scope: IdempotencyScope, request?: IdempotentRequest): Promise<void> {
    const args = request ? [request.fingerprint, request.mode] : [];
    await ABANDON.run(this.redis, [this.redisKey(scope)], args);
  }

  /** Deletes this request's completed record (a replay then runs the request again). */
  async forget(scope: IdempotencyScope, request: IdempotentRequest): Promise<void> {
    await FORGET.run(this.redis, [this.redisKey(scope)], [request.fingerprint, request.mode]);
    // A replay may have come from the old key: forgetting must reach it too (one key per script).
    if (Date.now() < this.legacyReadsUntil) await FORGET.run(this.redis, [this.legacyKey(scope)], [request.fingerprint, request.mode]);
  }

  /** The answer a record under the old key gives, or null when there is none (the tagged key decides). */
  private async legacyBegin(scope: IdempotencyScope, request: IdempotentRequest): Promise<IdempotencyBegin | null> {
    if (Date.now() >= this.legacyReadsUntil) return null;
    const key = this.legacyKey(scope);
    const [state, fingerprint, mode, body] = await this.redis.hmget(key, 'state', 'fingerprint', 'mode', 'body');
    if (state === null || state === undefined) return null;
    if (fingerprint !== request.fingerprint || mode !== request.mode) return { kind: 'reused' };
    if (state === 'completed') return { kind: 'replay', response: { status: 200, body: JSON.parse(body ?? 'null') as unknown } };
    // Still running in a process of the earlier release: no duration of its own to go by.
    return { kind: 'in_progress', retryAfterSeconds: expectedWaitSeconds(await this.redis.pttl(key), -1, -1, this.lockSeconds) };
  }

  // The workspace is the hash tag; no colon after it, so no record key (which has one) can be this.
  private durationKey(scope: IdempotencyScope): string {
    return `${this.prefix}{${encodeURIComponent(scope.workspaceId)}}duration-ms`;
  }

  // The workspace id is URI-encoded so a colon or a brace in it cannot make two scopes share a key or a tag.
  private redisKey(scope: IdempotencyScope): string {
    return `${this.prefix}{${encodeURIComponent(scope.workspaceId)}}:${scope.key}`;
  }

  /** Where releases before hash tags kept the record. */
  private legacyKey(scope: IdempotencyScope): string {
    return `${this.prefix}${encodeURIComponent(scope.workspaceId)}:${scope.key}`;
  }
}
