import { createHash } from 'node:crypto';
import { generateApiKey, hashSecret, secretMatches } from './api-key-secrets.js';

describe('generateApiKey', () => {
  it('makes live keys with the live_ prefix and 24 base32 characters', () => {
    const { key, secret } = generateApiKey('live');
    expect(key).toMatch(/^live_[a-z2-7]{24}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('makes sandbox keys starting with SBX', () => {
    const { key } = generateApiKey('sandbox');
    expect(key.startsWith('SBX')).toBe(true);
    expect(key).toMatch(/^SBX_[a-z2-7]{24}$/);
  });

  it('never repeats a key or a secret', () => {
    const generated = Array.from({ length: 500 }, () => generateApiKey('live'));
    expect(new Set(generated.map((item) => item.key)).size).toBe(500);
    expect(new Set(generated.map((item) => item.secret)).size).toBe(500);
  });
});

describe('hashSecret and secretMatches', () => {
  it('hashes with SHA-256 in hex', () => {
    expect(hashSecret('abc')).toBe(createHash('sha256').update('abc').digest('hex'));
    expect(hashSecret('abc')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('matches the right secret only', () => {
    const { secret } = generateApiKey('live');
    const stored = hashSecret(secret);
    expect(secretMatches(secret, stored)).toBe(true);
    expect(secretMatches(secret, stored.toUpperCase())).toBe(true);
    expect(secretMatches(`${secret}x`, stored)).toBe(false);
    expect(secretMatches(secret.slice(1), stored)).toBe(false);
    expect(secretMatches('', stored)).toBe(false);
  });

  it('refuses a stored hash that is not a SHA-256 hex digest instead of throwing', () => {
    const stored = hashSecret('secret');
    for (const broken of ['', stored.slice(2), `${stored}00`, `${stored.slice(0, 62)}zz`, 'secret']) {
      expect(secretMatches('secret', broken)).toBe(false);
    }
  });
});
