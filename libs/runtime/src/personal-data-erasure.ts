import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Logger } from 'pino';
import { assessmentStream, candidateStream } from '#domain';
import type { EventStore } from '#event-store';
import { ERASED, type PersonKeyStore } from '#event-store';
import { OUTBOX_TABLE } from '#messaging';
import { DELIVERIES_TABLE } from '#messaging/webhooks/delivery-log.sql.js';
import type { DocumentStore } from '#read-models';
import { scrubRedis } from './redis-scrub.js';

export interface ErasureDependencies {
  eventStore: EventStore;
  documents: DocumentStore;
  sidePool: pg.Pool;
  redis: Redis;
  personKeys: PersonKeyStore;
  /** Redis key prefixes that may hold copies: the queues', the idempotency records'. */
  redisPrefixes: readonly string[];
  messagingSchema: string;
  logger: Logger;
}

interface Person {
  workspaceId: string;
  email: string;
  firstName: string;
  surname: string;
}

/**
 * Crypto-shredding of a deleted test candidate: the copies outside the log (the e-mail outbox, the
 * webhook delivery log, Redis: idempotency records, job payloads and results) are redacted while the
 * clear values are still known, then the person's key is destroyed, which leaves every event about
 * them in the log (still verifying) with their address and names unreadable.
 */
export class PersonalDataErasure {
  constructor(private readonly deps: ErasureDependencies) {}

  async eraseDeletedCandidate(candidateId: string): Promise<void> {
    const events = await this.deps.eventStore.readStream(candidateStream(candidateId));
    if (!events.some((event) => event.type === 'CandidateDeleted')) return;
    const created = events.find((event) => event.type === 'CandidateCreated')?.data as Person | undefined;
    if (created === undefined || created.email === ERASED) return;
    const person = { workspaceId: created.workspaceId, email: created.email, firstName: created.firstName, surname: created.surname };
    await this.redactOutbox(person);
    await this.redactDeliveries(person);
    await scrubRedis(this.deps.redis, this.deps.redisPrefixes, person.email);
    const destroyed = await this.deps.personKeys.destroy(person.workspaceId, person.email);
    this.deps.logger.info({ candidateId, workspaceId: person.workspaceId, keysDestroyed: destroyed }, 'personal data erased');
  }

  /** Outbox rows have no workspace: they are found by the invitations of this person in this workspace. */
  private async redactOutbox(person: Person): Promise<void> {
    const assessments = await this.deps.documents.find<{ id: string }>('assessments', { where: [{ field: 'workspaceId', op: 'eq', value: person.workspaceId }], orderBy: [], limit: 100_000 });
    const eventIds: string[] = [];
    for (const { id } of assessments) {
      for (const event of await this.deps.eventStore.readStream(assessmentStream(id))) {
        if (event.type === 'CandidateInvited' && event.data.email === person.email) eventIds.push(event.id);
      }
    }
    await this.deps.sidePool.query(
      `UPDATE "${this.deps.messagingSchema}".${OUTBOX_TABLE} SET recipient = $2, body_text = $2, body_html = $2 WHERE event_id = ANY($1) AND recipient = $3`,
      [eventIds, ERASED, person.email],
    );
  }

  private async redactDeliveries(person: Person): Promise<void> {
    const quoted = (value: string): string => JSON.stringify(value);
    const values = [person.email, person.firstName, person.surname].filter((value) => value !== '' && value !== ERASED);
    let expression = 'envelope::text';
    values.forEach((_value, index) => { expression = `replace(${expression}, $${index + 3}, $2)`; });
    await this.deps.sidePool.query(
      `UPDATE "${this.deps.messagingSchema}".${DELIVERIES_TABLE} SET envelope = (${expression})::json WHERE workspace_id = $1 AND strpos(envelope::text, $3) > 0`,
      [person.workspaceId, quoted(ERASED), ...values.map(quoted)],
    );
  }
}

/** Wired from the process's infrastructure: the queues' prefix, the idempotency records' ('idem:'), the messaging schema. */
export const erasureFor = (infra: {
  eventStore: EventStore; documents: DocumentStore; sidePool: pg.Pool; redis: Redis; logger: Logger;
  audit: { personKeys: PersonKeyStore }; config: { queuePrefix: string };
}): PersonalDataErasure =>
  new PersonalDataErasure({
    eventStore: infra.eventStore, documents: infra.documents, sidePool: infra.sidePool, redis: infra.redis, personKeys: infra.audit.personKeys,
    redisPrefixes: [`${infra.config.queuePrefix}:`, 'idem:'], messagingSchema: 'messaging', logger: infra.logger,
  });
