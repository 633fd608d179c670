import type { EventStore, RecordedEvent } from '../../../../../libs/event-store/src/event-store.port.js';
import { apiError } from '../../../../../libs/http/src/index.js';

export type AsOfResource = 'candidate' | 'assessment';

export interface AsOfAnswer {
  /** `{ data }` as GET /internal/as-of/{resource}s/{id}?at= answers it; null where this build cannot fold it. */
  state: unknown;
  streamId: string;
  /** The stream's events recorded up to that domain time: what the state is folded from. */
  events: RecordedEvent[];
}

/** The one place the pages ask for a resource "as of" a domain time. */
export const asOf = async (store: EventStore, _appUrl: string, resource: AsOfResource, id: string, at: Date): Promise<AsOfAnswer> => {
  const streamId = `${resource}-${id}`;
  const until = at.getTime();
  const events = (await store.readStream(streamId)).filter((event) => Date.parse(event.metadata.time) <= until);
  if (events.length === 0) throw apiError('not_found', `No ${resource} ${id} existed at ${at.toISOString()}.`);
  return { state: null, streamId, events };
};
