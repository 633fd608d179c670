import { createCipheriv, createDecipheriv } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.js';

/**
 * AES-256-GCM as every sealed value of the service is written: `iv.tag.body`, each part base64url,
 * behind whatever prefix its owner puts in front (the secret box's `v1.`, a personal field's
 * `pii1.<keyId>.`). `aad` binds the value to its context: opening it elsewhere fails.
 */
export const sealAesGcm = (key: Buffer, plaintext: string | Buffer, aad?: Buffer): string => {
  const iv = pooledRandomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad !== undefined) cipher.setAAD(aad);
  const body = Buffer.concat([typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext), cipher.final()]);
  return `${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
};

/** The plaintext of a value sealed by sealAesGcm; throws when it is malformed or does not open under `key` and `aad`. */
export const openAesGcm = (key: Buffer, sealed: string, aad?: Buffer): Buffer => {
  const [iv, tag, body, extra] = sealed.split('.');
  if (!iv || !tag || body === undefined || extra !== undefined) throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (aad !== undefined) decipher.setAAD(aad);
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
};
