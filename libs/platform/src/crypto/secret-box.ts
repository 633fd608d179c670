import { createHash } from 'node:crypto';
import { openAesGcm, sealAesGcm } from './aes-gcm.js';

/**
 * Seals secrets that must be readable again (webhook signing secrets) with AES-256-GCM under a key
 * derived from the service secret. Events and read models hold only the sealed form.
 */
const VERSION = 'v1.';

export class SecretBox {
  private readonly key: Buffer;

  constructor(serviceSecret: string) {
    this.key = createHash('sha256').update(`secret-box:${serviceSecret}`).digest();
  }

  seal(plaintext: string): string {
    return `${VERSION}${sealAesGcm(this.key, plaintext)}`;
  }

  open(sealed: string): string {
    if (!sealed.startsWith(VERSION)) throw new Error('not a sealed secret');
    return openAesGcm(this.key, sealed.slice(VERSION.length)).toString('utf8');
  }
}

/** A key derived for one purpose, so one service secret never signs two kinds of thing alike. */
export const deriveKey = (serviceSecret: string, purpose: string): Buffer =>
  createHash('sha256').update(`${purpose}:${serviceSecret}`).digest();
