import type { EventStore, RecordedEvent } from '../../../../../libs/event-store/src/event-store.port.js';
import { apiError } from '../../../../../libs/http/src/index.js';

export type AsOfResource = 'candidate' | 'assessment';

export type AsOfAnswer =
  /** `{ data }` as GET /internal/as-of/{resource}s/{id}?at= answers it. */
  | { kind: 'state'; body: unknown }
  /** Until the as-of read is available: the stream's events recorded up to that domain time. */
  | { kind: 'events'; streamId: string; events: RecordedEvent[] };

/**
 * The one place the pages ask for a resource "as of" a time. It answers with the stream's events
 * up to `at` (domain time), which is what the state is folded from; where the service offers the
 * folded state itself (GET /internal/as-of/…), this is where it is called.
 */
export const asOf = async (store: EventStore, resource: AsOfResource, id: string, at: Date): Promise<AsOfAnswer> => {
  const streamId = `${resource}-${id}`;
  const events = await store.readStream(streamId);
  const until = at.toISOString();
  const upToThen = events.filter((event) => event.metadata.time <= until);
  if (upToThen.length === 0) throw apiError('not_found', `No ${resource} ${id} existed at ${until}.`);
  return { kind: 'events', streamId, events: upToThen };
};
