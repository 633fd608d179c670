import { randomUUID } from 'node:crypto';
import { pooledRandomBytes } from '../crypto/random-pool.js';

/** Ids are prefixed (readable in logs and support tickets) and carry 96+ random bits. */
const randomId = (prefix: string, bytes = 12): string => `${prefix}_${pooledRandomBytes(bytes).toString('base64url').replace(/[-_]/g, 'x')}`;

export const ids = {
  workspace: (): string => randomId('ws'),
  apiKey: (): string => randomId('key'),
  assessment: (): string => randomId('asm'),
  candidate: (): string => randomId('cand'),
  result: (): string => randomId('res'),
  invitation: (): string => randomId('inv'),
  customTest: (): string => randomId('custom', 6).toLowerCase().replace('_', '-'),
  /** Link tokens are secrets of a kind (they register a person): 24 random bytes. */
  token: (): string => pooledRandomBytes(24).toString('base64url'),
  event: (): string => randomUUID(),
  request: (): string => randomUUID(),
};
