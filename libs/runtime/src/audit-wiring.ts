import type pg from 'pg';
import type { Logger } from 'pino';
import {
  type EventStore, IntegrityEventStore, type IntegrityKeys, LogSealer, PersonKeyStore, PersonalDataEventStore, type RecordedEvent,
  SealStore, SnapshotStore, integrityKeys,
} from '#event-store';
import { PERSON_ENDING_EVENTS, upcastData } from '#domain';
import { type ServiceConfig, resolveServiceSecret } from '#platform';

export interface AuditStores {
  keys: IntegrityKeys;
  seals: SealStore;
  personKeys: PersonKeyStore;
  /** The log as stored: personal data sealed, every event hashed. What verify and export read. */
  logStore: EventStore;
}

/**
 * Wraps the adapter in the audit layers: hashes and seals (integrity/) inside, personal data sealed
 * per person outside (personal-data/), so the chain covers what is stored and survives an erasure.
 * Seals and person keys sit in the SQL database beside the log (the side database with EventStoreDB).
 */
export const openAuditStores = async (config: ServiceConfig, sqlPool: pg.Pool, adapter: EventStore): Promise<{ audit: AuditStores; eventStore: EventStore }> => {
  const serviceSecret = resolveServiceSecret(config.serviceSecret, config.dataDir);
  const seals = new SealStore(sqlPool, 'public');
  const personKeys = new PersonKeyStore(sqlPool, serviceSecret, 'public', { deployment: config.deployment });
  // Runs the audit tables' migrations (once for the three stores) and learns the people (embedded store).
  await personKeys.prepare();
  await personKeys.assertOwnSecret();
  const snapshots = new SnapshotStore(sqlPool, personKeys, 'public');
  const keys = integrityKeys(serviceSecret);
  const logStore = new IntegrityEventStore(adapter, keys.eventKey);
  // An adapter that runs statements in its appends is the SQL log on sqlPool itself (openStores): the
  // person keys are in its database, and a new person's key is stored in the append that first uses it.
  // A deleted person's key is retired with their deletion (see personal-data-erasure.ts).
  // Outermost on the way out: every reader (folds, projections, dispatcher, rebuilds, audit views)
  // gets events in the current schema (libs/domain/src/shared/event-schema.ts); the log keeps them as written.
  const eventStore = new PersonalDataEventStore(logStore, personKeys, snapshots, {
    keysInAppend: adapter.runsStatements === true, endingTypes: PERSON_ENDING_EVENTS, upcast: upcastEvent,
  });
  return { audit: { keys, seals, personKeys, logStore }, eventStore };
};

/** An event as written, in the current schema: the same object unless its type changed shape since. */
export const upcastEvent = (event: RecordedEvent): RecordedEvent => {
  const data = upcastData(event.type, event.data, event.metadata.schemaVersion ?? 1);
  return data === event.data ? event : { ...event, data };
};

export const createSealer = (stores: { audit: AuditStores }, config: ServiceConfig, logger: Logger): LogSealer =>
  new LogSealer({ eventStore: stores.audit.logStore, seals: stores.audit.seals, linkKey: stores.audit.keys.linkKey, signer: stores.audit.keys.signer, logger, intervalMs: config.sealIntervalMs });
