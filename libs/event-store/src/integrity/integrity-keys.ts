import { createHash } from 'node:crypto';
import { SealSigner } from './log-seal.js';

export interface IntegrityKeys {
  /** HMAC key of the events' hash chain. */
  eventKey: Buffer;
  /** HMAC key of the chain over the global order (log-links.ts). */
  linkKey: Buffer;
  signer: SealSigner;
}

const derive = (serviceSecret: string, purpose: string): Buffer => createHash('sha256').update(`${purpose}:${serviceSecret}`).digest();

/** Every key comes from the service secret, so every process of one service chains and seals alike. */
export const integrityKeys = (serviceSecret: string): IntegrityKeys => ({
  eventKey: derive(serviceSecret, 'event-chain'),
  linkKey: derive(serviceSecret, 'global-chain'),
  signer: new SealSigner(derive(serviceSecret, 'log-seal')),
});
