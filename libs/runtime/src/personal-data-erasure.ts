import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { assessmentStream, candidateStream } from '#domain';
import type { EventStore, RecordedEvent } from '#event-store';
import { ERASED, type PersonKeyStore, sealedKeyIds } from '#event-store';
import type { DeliveryLog, EmailOutbox, ErasureReaction } from '#messaging';
import type { DocumentStore } from '#read-models';
import { scrubRedis } from './redis-scrub.js';

/** The event types that end a person: their key is retired with it, and this erasure follows from it. */
export const PERSON_ENDING_TYPES = ['CandidateDeleted'] as const;

export interface ErasureDependencies {
  /** The log with personal data opened (clear values, while the keys live). */
  eventStore: EventStore;
  /** The log as stored (personal data sealed): which keys sealed a person's events. */
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

interface Person {
  workspaceId: string;
  email: string;
  firstName: string;
  surname: string;
}

/**
 * Crypto-shredding of a deleted test candidate, as a reaction to `CandidateDeleted` in the log (the
 * dispatcher runs it in the log's order, whichever route deleted them, and again after a crash):
 * the copies outside the log (the e-mail outbox, the webhook delivery log, Redis: idempotency
 * records, job payloads) are redacted while the clear values can still be read, then the keys that
 * sealed the candidate's events are destroyed, which leaves every event about them in the log
 * (still verifying) with their address and names unreadable. Only those keys: the deletion retired
 * them in its own transaction, so nobody invited again at that address since has data under them.
 */
export class PersonalDataErasure implements ErasureReaction {
  readonly endingTypes = PERSON_ENDING_TYPES;

  constructor(private readonly deps: ErasureDependencies) {}

  async erase(deleted: RecordedEvent): Promise<void> {
    const candidateId = String(deleted.data.candidateId);
    const stored = await this.deps.logStore.readStream(candidateStream(candidateId));
    const keyIds = new Set<string>();
    for (const event of stored) sealedKeyIds(event.data, keyIds);
    const created = (await this.deps.eventStore.readStream(candidateStream(candidateId))).find((event) => event.type === 'CandidateCreated')?.data as Person | undefined;
    if (created === undefined) return;
    // Erased already (a repeat after a crash, or before this version): the copies went before the keys.
    if (created.email !== ERASED) {
      const person = { workspaceId: created.workspaceId, email: created.email, firstName: created.firstName, surname: created.surname };
      await this.deps.outbox.redact(await this.invitationEventIds(person), person.email, ERASED);
      await this.deps.deliveries.redact(person.workspaceId, [person.email, person.firstName, person.surname], ERASED);
      await scrubRedis(this.deps.redis, this.deps.redisPrefixes, person.email);
    }
    const destroyed = await this.deps.personKeys.destroyKeys(created.workspaceId, [...keyIds]);
    this.deps.logger.info({ candidateId, workspaceId: created.workspaceId, keysDestroyed: destroyed }, 'personal data erased');
  }

  /** Outbox rows have no workspace: they are found by the invitations of this person in this workspace. */
  private async invitationEventIds(person: Person): Promise<string[]> {
    const assessments = await this.deps.documents.find<{ id: string }>('assessments', { where: [{ field: 'workspaceId', op: 'eq', value: person.workspaceId }], orderBy: [], limit: 100_000 });
    const eventIds: string[] = [];
    for (const { id } of assessments) {
      for (const event of await this.deps.eventStore.readStream(assessmentStream(id))) {
        if (event.type === 'CandidateInvited' && event.data.email === person.email) eventIds.push(event.id);
      }
    }
    return eventIds;
  }
}
