import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * What a golden database holds besides its dump: the secrets it was made with and the answers the
 * release that made it gave. `test/golden.e2e.spec.ts` starts today's service on a copy and asks
 * every question again.
 */
export interface GoldenManifest {
  release: string;
  madeAt: string;
  /** APP_URL of the service that made it (links in answers are built on it). */
  appUrl: string;
  serviceSecret: string;
  internalToken: string;
  workspaceId: string;
  credentials: Record<'live' | 'sandbox', string>;
  webhookSecret: string;
  /** Dotted paths (`*` for any list index) whose values depend on the time of the question, not on the log. */
  volatile: string[];
  answers: GoldenAnswer[];
}

export interface GoldenAnswer {
  app: 'api' | 'internal';
  method: 'GET';
  path: string;
  credential: 'live' | 'sandbox' | 'internal';
  status: number;
  body: unknown;
}

export const GOLDEN_DIR = resolve('test/golden');

export const releaseVersion = (): string => (JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { version: string }).version;

/**
 * Everything of `recorded` is in `now` (objects may have gained fields; nothing changed or removed;
 * lists keep their length and order). Returns the paths that differ.
 */
export const missingFrom = (recorded: unknown, now: unknown, volatile: readonly string[], path = ''): string[] => {
  if (volatile.some((pattern) => new RegExp(`^${pattern.replaceAll('.', '\\.').replaceAll('*', '\\d+')}$`).test(path))) return [];
  if (Array.isArray(recorded)) {
    if (!Array.isArray(now) || now.length !== recorded.length) return [`${path} (list of ${recorded.length}, now ${Array.isArray(now) ? now.length : typeof now})`];
    return recorded.flatMap((item, index) => missingFrom(item, now[index], volatile, path === '' ? String(index) : `${path}.${index}`));
  }
  if (recorded !== null && typeof recorded === 'object') {
    if (now === null || typeof now !== 'object' || Array.isArray(now)) return [`${path} (an object, now ${JSON.stringify(now)})`];
    return Object.entries(recorded).flatMap(([key, value]) => missingFrom(value, (now as Record<string, unknown>)[key], volatile, path === '' ? key : `${path}.${key}`));
  }
  return Object.is(recorded, now) ? [] : [`${path}: ${JSON.stringify(recorded)} -> ${JSON.stringify(now)}`];
};
