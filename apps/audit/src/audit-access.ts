import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DataDirInUseError, type RecordedEvent } from '#event-store';
import { integrityKeys, linesSource, storeSource, type IntegrityKeys, type LogSeal, type LogSource } from '#event-store';
import type { ServiceConfig } from '#platform';
import { createSealer } from '#runtime/audit-wiring.js';
import { openStores, type Stores } from '#runtime/create-infrastructure.js';
import { ServiceClient } from './service-client.js';

/** The log as the command line reaches it: the stores directly, or the running service holding DATA_DIR. */
export interface AuditAccess {
  /** Null through the service: commands that need the stores themselves (rebuild) say so. */
  stores: Stores | null;
  /** The log as stored: personal data sealed. What verify and export read. */
  source(): Promise<LogSource>;
  /** The same events with personal data opened (or erased): what replay prints. */
  openedSource(): Promise<LogSource>;
  sealNow(onProgress?: (done: number) => void): Promise<LogSeal | null>;
  latestSeal(): Promise<LogSeal | null>;
  readStream(streamId: string): Promise<RecordedEvent[]>;
  stop(): Promise<void>;
}

export const openAccess = async (config: ServiceConfig, logger: Logger): Promise<AuditAccess> => {
  try {
    const stores = await openStores(config, logger);
    const sealer = createSealer(stores, config, logger);
    return {
      stores,
      source: async () => storeSource(stores.audit.logStore, stores.audit.seals, stores.audit.keys.signer.publicKey),
      openedSource: async () => storeSource(stores.eventStore, stores.audit.seals, stores.audit.keys.signer.publicKey),
      sealNow: (onProgress) => sealer.sealPending(onProgress),
      latestSeal: () => stores.audit.seals.latest(),
      readStream: (streamId) => stores.eventStore.readStream(streamId),
      stop: () => stores.stop(),
    };
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    if (!process.env.INTERNAL_TOKEN) throw new Error(`${error.message}; set INTERNAL_TOKEN (and INTERNAL_PORT) to go through the running service`);
    const client = new ServiceClient(process.env.AUDIT_SERVICE_URL || `http://127.0.0.1:${config.internalPort}`, config.internalToken);
    return {
      stores: null,
      source: async () => linesSource(await client.exportLines()),
      openedSource: async () => linesSource(await client.exportLines(true)),
      sealNow: () => client.seal('POST'),
      latestSeal: () => client.seal('GET'),
      readStream: (streamId) => client.stream(streamId),
      stop: async () => undefined,
    };
  }
};

/** The service's keys when this machine holds its secret (SERVICE_SECRET or DATA_DIR/service-secret); never creates one. */
export const knownKeys = (config: ServiceConfig): IntegrityKeys | null => {
  if (config.serviceSecret) return integrityKeys(config.serviceSecret);
  const path = join(config.dataDir, 'service-secret');
  return existsSync(path) ? integrityKeys(readFileSync(path, 'utf8').trim()) : null;
};
