import type pg from 'pg';
import type { Logger } from 'pino';
import { LogSealer, SealStore, integrityKeys, type IntegrityKeys } from '../../event-store/src/integrity/index.js';
import type { EventStore } from '../../event-store/src/event-store.port.js';
import type { ServiceConfig } from '../../platform/src/config/config.js';
import { resolveServiceSecret } from '../../platform/src/crypto/service-secret.js';

export interface AuditStores {
  keys: IntegrityKeys;
  seals: SealStore;
}

/** The seals sit in the SQL database beside the log (the side database with EventStoreDB). */
export const openAuditStores = async (config: ServiceConfig, sqlPool: pg.Pool): Promise<AuditStores> => {
  const seals = new SealStore(sqlPool, 'public');
  await seals.prepare();
  return { keys: integrityKeys(resolveServiceSecret(config.serviceSecret, config.dataDir)), seals };
};

export const createSealer = (stores: { eventStore: EventStore; audit: AuditStores }, config: ServiceConfig, logger: Logger): LogSealer =>
  new LogSealer({ eventStore: stores.eventStore, seals: stores.audit.seals, signer: stores.audit.keys.signer, logger, intervalMs: config.sealIntervalMs });

/** Runs in the processes that follow the log (standalone, worker). */
export const startSealer = (stores: { eventStore: EventStore; audit: AuditStores }, config: ServiceConfig, logger: Logger): LogSealer => {
  const sealer = createSealer(stores, config, logger);
  sealer.start();
  return sealer;
};
