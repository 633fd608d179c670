import { randomInt } from 'node:crypto';

/**
 * What one run of the tier does, from the environment:
 * - `CONCURRENCY_SEED=<n>`: the seed of the first (or only) workload; random when unset, always printed.
 * - `CONCURRENCY_SEEDS=<n>`: that many workloads in a row against the same deployment (seed, seed+1, ...),
 *   each on workspaces of its own.
 * - `CONCURRENCY_SOAK=<n>` or `<n>s`: a longer workload of n operations, or of n seconds.
 * - `CONCURRENCY_CLIENTS=<n>`: concurrent clients (default 12).
 * - `CONCURRENCY_DUMP=<folder>`: a failing seed's answers and log are written there as JSON.
 * - `CONCURRENCY_FAULTS=1`: on a deployment that can suffer them (PostgreSQL), faults during the
 *   workload: kill -9 of each process kind, its database connections terminated, its Redis restarted
 *   (faults.ts); clients retry what they lost as the API document says.
 */
export interface TierSettings {
  seeds: number[];
  operations: number;
  /** A time budget instead of a count (soak); null: run `operations`. */
  seconds: number | null;
  clients: number;
  soak: boolean;
  faults: boolean;
}

const DEFAULT_OPERATIONS = 700;

const positive = (name: string, value: string | undefined): number | null => {
  if (value === undefined || value === '') return null;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive whole number, not ${JSON.stringify(value)}`);
  return parsed;
};

export const tierSettings = (env: NodeJS.ProcessEnv = process.env): TierSettings => {
  const first = positive('CONCURRENCY_SEED', env.CONCURRENCY_SEED) ?? randomInt(1, 2 ** 31);
  const count = positive('CONCURRENCY_SEEDS', env.CONCURRENCY_SEEDS) ?? 1;
  const soak = env.CONCURRENCY_SOAK?.trim() ?? '';
  const inSeconds = soak.endsWith('s');
  const amount = positive('CONCURRENCY_SOAK', inSeconds ? soak.slice(0, -1) : soak);
  return {
    seeds: Array.from({ length: count }, (_, index) => first + index),
    operations: amount !== null && !inSeconds ? amount : DEFAULT_OPERATIONS,
    seconds: amount !== null && inSeconds ? amount : null,
    clients: positive('CONCURRENCY_CLIENTS', env.CONCURRENCY_CLIENTS) ?? 12,
    soak: amount !== null,
    faults: env.CONCURRENCY_FAULTS === '1' || env.CONCURRENCY_FAULTS === 'true',
  };
};

/** mulberry32: a small seeded PRNG, enough to make a workload's choices repeatable from its seed. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.next() * items.length)];
  }

  /** Up to `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const chosen: T[] = [];
    while (chosen.length < count && pool.length > 0) chosen.push(...pool.splice(Math.floor(this.next() * pool.length), 1));
    return chosen;
  }

  /** One of the keys, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let roll = this.next() * entries.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    return (entries.at(-1) as [K, number])[0];
  }
}

/** A seed of its own for each client of a workload, derived from the workload's seed. */
export const clientSeed = (seed: number, client: number): number => (Math.imul(seed, 0x9e3779b1) + client * 0x85ebca6b) >>> 0;

/**
 * Jest's limit for one deployment's run: generous per seed (a seed of 700 operations takes one to two
 * minutes, four on a machine other jobs load), so that a slow run still reports what it found.
 */
export const testTimeout = (settings: TierSettings): number =>
  settings.seeds.length * ((settings.seconds ?? settings.operations / 4) + 300) * 1000;
