import { Redis } from 'ioredis';
import { hashTagged } from '#platform';
import type pg from 'pg';
import { REDIS_URL } from '#messaging/test-support/redis.js';
import type { Findings } from './findings.js';
import type { Knowledge } from './knowledge.js';
import { ERASED, type LogFacts } from './log.js';

export interface Needle {
  workspaceId: string;
  /** What must be gone: an address, or a name that only that address's invitations used. */
  text: string;
  address: string;
  what: 'the address' | 'a name an invitation of the address sent';
}

/**
 * The personal data that must be gone everywhere: addresses of deleted test candidates that nobody
 * holds again (no candidate not deleted, no standing invitation), with the names their invitations
 * sent. An address invited again after the deletion is a new person and legitimately stored.
 */
export const erasedPeople = (facts: LogFacts, knowledge: Knowledge): Needle[] => {
  const addressOfCandidate = (id: string, logged: string) => knowledge.candidates.get(id)?.email ?? (logged === ERASED ? null : logged);
  const inUse = new Set<string>();
  for (const candidate of facts.candidates.values()) {
    const address = addressOfCandidate(candidate.id, candidate.email);
    if (!candidate.deleted && address !== null) inUse.add(`${candidate.workspaceId} ${address}`);
  }
  for (const invitation of facts.invitations.values()) {
    const address = invitation.email === ERASED ? knowledge.links.get(invitation.token)?.email : invitation.email;
    if (invitation.endedBy === null && address !== undefined) inUse.add(`${invitation.workspaceId} ${address}`);
  }
  const gone = new Map<string, { workspaceId: string; address: string }>();
  for (const candidate of facts.candidates.values()) {
    const address = addressOfCandidate(candidate.id, candidate.email);
    if (candidate.deleted && address !== null && !inUse.has(`${candidate.workspaceId} ${address}`)) {
      gone.set(`${candidate.workspaceId} ${address}`, { workspaceId: candidate.workspaceId, address });
    }
  }
  return [...gone.values()].flatMap(({ workspaceId, address }) => [
    { workspaceId, address, text: address, what: 'the address' as const },
    ...[...knowledge.links.values()]
      .filter((link) => link.workspaceId === workspaceId && link.email === address && link.person !== null)
      .flatMap((link) => [link.person?.firstName ?? '', link.person?.surname ?? '']
        .map((text) => ({ workspaceId, address, text, what: 'a name an invitation of the address sent' as const }))),
  ]);
};

/** No table of the database holds them in clear: read models, outbox, delivery log, the log itself (sealed), snapshots. */
export const checkDatabaseErasure = async (db: pg.Client, needles: Needle[], findings: Findings): Promise<void> => {
  if (needles.length === 0) return;
  const tables = (await db.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  )).rows;
  const texts = [...new Set(needles.map((needle) => needle.text))];
  for (const { schema, name } of tables) {
    const table = `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
    const found = (await db.query<{ needle: string; sample: string }>(
      `SELECT needle, (SELECT left(row::text, 240) FROM ${table} AS row WHERE strpos(row::text, needle) > 0 LIMIT 1) AS sample
       FROM unnest($1::text[]) AS needle WHERE EXISTS (SELECT 1 FROM ${table} AS row WHERE strpos(row::text, needle) > 0)`, [texts],
    )).rows;
    for (const { needle, sample } of found) {
      const owner = needles.find((item) => item.text === needle);
      findings.add('a deleted candidate\'s personal data is nowhere in the database', `${schema}.${name} holds "${needle}" (${owner?.what} ${owner?.address}): ${sample}`);
    }
  }
};

/** Nor in Redis, under the deployment's queue prefix or the workspaces' idempotency records. */
export const checkRedisErasure = async (
  queuePrefix: string, workspaceIds: string[], needles: Needle[], knowledge: Knowledge, findings: Findings, redisUrl = REDIS_URL,
): Promise<void> => {
  if (needles.length === 0) return;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  try {
    // Both forms of each: as releases before hash tags wrote them, and tagged (docs/architecture.md, Redis keys).
    const queues = [`${queuePrefix}:*`, `${hashTagged(queuePrefix)}:*`];
    const records = workspaceIds.flatMap((id) => [`idem:${encodeURIComponent(id)}:*`, `idem:{${encodeURIComponent(id)}}:*`]);
    for (const pattern of [...new Set(queues), ...records]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        for (const key of keys) {
          const values = await valuesOf(redis, key);
          for (const needle of needles) {
            if (sentAfterDeletion(key, needle, knowledge)) continue;
            if (key.includes(needle.text) || values.some((value) => value.includes(needle.text))) {
              findings.add('a deleted candidate\'s personal data is nowhere in Redis', `${key} holds "${needle.text}" (${needle.what} ${needle.address})${whence(key, needle, knowledge)}`);
            }
          }
        }
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
};

/**
 * An idempotency record whose every request was sent after the address's last deletion had been
 * answered holds what the integrator sent about a new person (an address may be invited again after
 * a deletion, and an entry for it may fail): not the deleted person's data.
 */
const sentAfterDeletion = (key: string, needle: Needle, knowledge: Knowledge): boolean => {
  if (!key.startsWith('idem:')) return false;
  const idempotencyKey = key.split(':').slice(2).join(':');
  const uses = knowledge.idempotent.filter((use) => use.workspaceId === needle.workspaceId && use.key === idempotencyKey);
  const deleted = Math.max(...knowledge.deletions.filter((deletion) => deletion.workspaceId === needle.workspaceId && deletion.email === needle.address).map((deletion) => deletion.finishedAt));
  return uses.length > 0 && Number.isFinite(deleted) && uses.every((use) => use.startedAt > deleted);
};

/** For an idempotency record: the requests made with its key and the deletions of the address, in the run's time (ms). */
const whence = (key: string, needle: Needle, knowledge: Knowledge): string => {
  const idempotencyKey = key.split(':').slice(2).join(':');
  const uses = knowledge.idempotent.filter((use) => use.workspaceId === needle.workspaceId && use.key === idempotencyKey);
  const deletions = knowledge.deletions.filter((deletion) => deletion.workspaceId === needle.workspaceId && deletion.email === needle.address);
  if (uses.length === 0 && deletions.length === 0) return '';
  const entry = (answer: unknown): string => JSON.stringify(((answer as { data?: { email?: string; status?: string; reason?: string | null }[] } | null)?.data ?? [])
    .filter((item) => item.email === needle.address).map((item) => `${item.status}/${item.reason}`));
  return `; requests with this key: ${uses.map((use) => `[${use.startedAt}-${use.finishedAt} ${use.status}${use.replayed ? ' replayed' : ''} ${entry(use.answer)}]`).join(' ')}`
    + `; deletions of the address: ${deletions.map((deletion) => `[${deletion.startedAt}-${deletion.finishedAt} ${deletion.status}]`).join(' ')}`;
};

const valuesOf = async (redis: Redis, key: string): Promise<string[]> => {
  switch (await redis.type(key)) {
    case 'string': return [(await redis.get(key)) ?? ''];
    case 'hash': return Object.entries(await redis.hgetall(key)).flat();
    case 'list': return redis.lrange(key, 0, -1);
    case 'set': return redis.smembers(key);
    case 'zset': return redis.zrange(key, '0', '-1');
    case 'stream': return (await redis.xrange(key, '-', '+')).flatMap(([, fields]) => fields);
    default: return [];
  }
};
