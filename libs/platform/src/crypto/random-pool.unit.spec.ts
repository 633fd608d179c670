import { pooledRandomBytes } from './random-pool.js';

describe('pooledRandomBytes', () => {
  it('hands out every byte once, as copies of the requested size, across pool refills', () => {
    const seen = new Set<string>();
    const handed: Buffer[] = [];
    // 100k draws of 12 bytes: well over one 64 KB pool.
    for (let index = 0; index < 100_000; index += 1) {
      const bytes = pooledRandomBytes(12);
      handed.push(bytes);
      seen.add(bytes.toString('hex'));
    }
    expect(handed.every((bytes) => bytes.length === 12)).toBe(true);
    // 96 random bits each: a repeat would mean bytes handed out twice.
    expect(seen.size).toBe(100_000);
    // Copies: changing one leaves the next draws and the others alone.
    handed[0]?.fill(0);
    expect(handed[1]?.equals(Buffer.alloc(12))).toBe(false);
    expect(pooledRandomBytes(4096)).toHaveLength(4096);
  });

  it('looks random: every byte value occurs, none far more often than the others', () => {
    const counts = new Array<number>(256).fill(0);
    for (let index = 0; index < 20_000; index += 1) for (const byte of pooledRandomBytes(32)) counts[byte] = (counts[byte] ?? 0) + 1;
    // 640k bytes: 2,500 expected per value.
    expect(Math.min(...counts)).toBeGreaterThan(2_200);
    expect(Math.max(...counts)).toBeLessThan(2_800);
  });
});
