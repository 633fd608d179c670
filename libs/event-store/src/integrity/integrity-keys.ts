import { createHash } from 'node:crypto';
import { SealSigner } from './log-seal.js';

export interface IntegrityKeys {
  /** HMAC key of the events' hash chain. */
  eventKey: Buffer;
  signer: SealSigner;
}

const derive = (serviceSecret: string, purpose: string): Buffer => createHash('sha256').update(`${purpose}:${serviceSecret}`).digest();

/** Both keys come from the service secret, so every process of one service chains and seals alike. */
export const integrityKeys = (serviceSecret: string): IntegrityKeys => ({
  eventKey: derive(serviceSecret, 'event-chain'),
  signer: new SealSigner(derive(serviceSecret, 'log-seal')),
});
