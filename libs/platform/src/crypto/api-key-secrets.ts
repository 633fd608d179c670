import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type ApiKeyMode = 'live' | 'sandbox';

export interface GeneratedApiKey {
  key: string;
  secret: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;
const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * Secrets are 32 random bytes, out of reach of any dictionary or brute force whatever the hash speed: one
 * SHA-256 keeps a leaked table useless; a slow password hash would only add latency to every request.
 */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Compares in constant time so the answer time tells nothing about how much of the hash matched. */
export const secretMatches = (secret: string, storedHash: string): boolean => {
  if (!SHA256_HEX.test(storedHash)) return false;
  const expected = Buffer.from(storedHash, 'hex');
  const actual = createHash('sha256').update(secret, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
};

/**
 * A sandbox key starts with `SBX` (API document 4.4) to be told apart at a glance; the mode is stored, never
 * inferred from it. 15 random bytes give 24 base32 characters (120 bits): unguessable and unique.
 */
export const generateApiKey = (mode: ApiKeyMode): GeneratedApiKey => {
  const prefix = mode === 'sandbox' ? 'SBX_' : 'live_';
  return { key: prefix + base32(randomBytes(15)), secret: randomBytes(32).toString('base64url') };
};

const base32 = (bytes: Buffer): string => {
  let bits = 0;
  let buffer = 0;
  let text = '';
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      text += BASE32_ALPHABET.charAt((buffer >>> bits) & 31);
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) text += BASE32_ALPHABET.charAt((buffer << (5 - bits)) & 31);
  return text;
};
