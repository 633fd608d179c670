import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { PERSON_ENDING_EVENTS, assessmentStream, candidateStream } from '#domain';
import {
  ERASED, type EventStore, type PersonKeyStore, type RecordedEvent, decryptPersonalFields, personalValues, sealedKeyIds,
} from '#event-store';
import type { DeliveryLog, EmailOutbox, ErasureReaction } from '#messaging';
import { type DocumentStore, listAssessmentIds } from '#read-models';
import { scrubRedis } from './redis-scrub.js';

/**
 * The clocks of the database (a deletion's time), Redis (an idempotency record's start) and a process (a job's
 * timestamp) may differ a little: copies made up to this long after the deletion still go, and no answer is kept
 * whose address was deleted up to this long before its request began (ErasureWindow): nothing replayable is lost.
 */
const CLOCK_MARGIN_MS = 1_000;

/**
 * Copies of a person's data made during their deletion. One made before it (plus the margin) is scrubbed by the
 * erasure. A request begun before the deletion may store its answer after the erasure's one Redis scrub: the
 * idempotency interceptor asks here and such an answer is not kept (a replay runs the request again). The deletion
 * retires the key in its own transaction before the erasure runs, so a retirement since the request began is seen
 * whenever the scrub came before the answer was stored.
 */
export class ErasureWindow {
  constructor(private readonly personKeys: PersonKeyStore) {}

  async mayKeepAnswer(workspaceId: string, emails: readonly string[], startedAt: number): Promise<boolean> {
    return emails.length === 0 || !(await this.personKeys.retiredSince(workspaceId, emails, startedAt - CLOCK_MARGIN_MS));
  }
}

export interface ErasureDependencies {
  /** The log as stored (personal data sealed): which events a person's keys sealed. */
  logStore: EventStore;
  documents: DocumentStore;
  outbox: EmailOutbox;
  deliveries: DeliveryLog;
  redis: Redis;
  personKeys: PersonKeyStore;
  /** Redis key prefixes that may hold copies: the queues', the idempotency records'. */
  redisPrefixes: readonly string[];
  logger: Logger;
}

/**
 * Crypto-shredding of a deleted test candidate, reacting to `CandidateDeleted` (the dispatcher runs it in the log's
 * order, whichever route deleted them, and again after a crash). Their events are those sealed with the keys that
 * sealed their own stream: that stream and their invitations. Copies outside the log (outbox, webhook delivery log,
 * Redis idempotency records and job payloads) are redacted while the keys still open them, then the keys are
 * destroyed: the log still verifies, their address and names unreadable. Nobody invited at that address since has
 * data under those keys: the deletion retired them in its own transaction.
 */
export class PersonalDataErasure implements ErasureReaction {
  /** The event types that end a person: their key is retired with it, and this erasure follows from it. */
  readonly endingTypes = PERSON_ENDING_EVENTS;

  constructor(private readonly deps: ErasureDependencies) {}

  async erase(deleted: RecordedEvent): Promise<void> {
    const candidateId = String(deleted.data.candidateId);
    const workspaceId = String(deleted.data.workspaceId);
    const own = await this.deps.logStore.readStream(candidateStream(candidateId));
    const keyIds = new Set<string>();
    for (const event of own) sealedKeyIds(event.data, keyIds);
    if (keyIds.size === 0) return;
    const events = [...own, ...(await this.invitationsSealedWith(workspaceId, keyIds))];
    const keys = await this.deps.personKeys.load(keyIds);
    const values = new Set<string>();
    for (const event of events) personalValues(decryptPersonalFields(event.data, keys), values);
    values.delete(ERASED);
    // Erased already (a repeat after a crash, or before this version): the copies went before the keys.
    if (values.size > 0) {
      const eventIds = events.map((event) => event.id);
      await this.deps.outbox.redact(eventIds, ERASED);
      await this.deps.deliveries.redact(workspaceId, eventIds, [...values], ERASED);
      // Copies made after the deletion (plus the clocks' margin) are about whoever holds the address since.
      const madeBefore = Date.parse(deleted.recordedAt) + CLOCK_MARGIN_MS;
      for (const value of values) if (value.includes('@')) await scrubRedis(this.deps.redis, this.deps.redisPrefixes, value, Number.isFinite(madeBefore) ? madeBefore : undefined);
    }
    const destroyed = await this.deps.personKeys.destroyKeys(workspaceId, [...keyIds]);
    this.deps.logger.info({ candidateId, workspaceId, keysDestroyed: destroyed }, 'personal data erased');
  }

  /** The invitations in the workspace's assessments sealed with these keys (the person's, withdrawn or used). */
  private async invitationsSealedWith(workspaceId: string, keyIds: ReadonlySet<string>): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    for (const id of await listAssessmentIds(this.deps.documents, workspaceId)) {
      for (const event of await this.deps.logStore.readStream(assessmentStream(id))) {
        if (event.type !== 'CandidateInvited') continue;
        const sealedWith = new Set<string>();
        sealedKeyIds(event.data, sealedWith);
        if ([...sealedWith].some((keyId) => keyIds.has(keyId))) found.push(event);
      }
    }
    return found;
  }
}
