import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals secrets that must be readable again (webhook signing secrets) with AES-256-GCM under a key
 * derived from the service secret. Events and read models hold only the sealed form.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(serviceSecret: string) {
    this.key = createHash('sha256').update(`secret-box:${serviceSecret}`).digest();
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** A key derived for one purpose, so one service secret never signs two kinds of thing alike. */
export const deriveKey = (serviceSecret: string, purpose: string): Buffer =>
  createHash('sha256').update(`${purpose}:${serviceSecret}`).digest();
