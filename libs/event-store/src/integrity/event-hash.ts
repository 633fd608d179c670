import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '#platform';

/** The previous hash of a stream's first event. */
export const GENESIS_HASH = '';

/** What the chain covers of one event. */
export interface HashedFields {
  id: string;
  streamId: string;
  revision: number;
  type: string;
  data: object;
  metadata: object;
  recordedAt: string;
}

/**
 * HMAC-SHA256 under a key derived from the service secret, over the previous event's hash and the
 * event's canonical encoding. Keyed, so that someone with only the database cannot recompute a
 * chain after editing it; chained, so that removing, reordering or inserting an event in a stream
 * breaks every later link.
 */
export const eventHash = (key: Buffer, previousHash: string, event: HashedFields): string =>
  createHmac('sha256', key)
    .update(canonicalJson([previousHash, event.streamId, event.revision, event.id, event.type, event.data, event.metadata, event.recordedAt]))
    .digest('hex');

export const sameHash = (left: string, right: string): boolean =>
  left.length === right.length && timingSafeEqual(Buffer.from(left), Buffer.from(right));
