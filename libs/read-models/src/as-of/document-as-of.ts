import type { RecordedEvent } from '#event-store';
import type { Projection } from '../shared/projection.js';
import { asDomainEvent } from '../shared/recorded-domain-event.js';

/** Up to a domain time (the `time` every decision recorded) or up to a global position, inclusive. */
export type AsOf = { time: Date } | { position: bigint };

const within = (event: RecordedEvent, asOf: AsOf): boolean =>
  'time' in asOf ? Date.parse(event.metadata.time) <= asOf.time.getTime() : event.position <= asOf.position;

/**
 * One read model document as it stood at a point in the past, rebuilt in memory by the same pure
 * `evolve` the projection runner uses, from the events (in order) that feed it. Within a stream
 * domain times do not go backwards, so the first event past the point ends the fold.
 */
export const documentAsOf = <Doc extends object>(projection: Projection<Doc>, documentId: string, events: readonly RecordedEvent[], asOf: AsOf): Doc | null => {
  let document: Doc | null = null;
  for (const recorded of events) {
    if (!within(recorded, asOf)) break;
    const event = asDomainEvent(recorded);
    if (event === null || !projection.eventTypes.includes(event.type) || !projection.documentIds(event).includes(documentId)) continue;
    document = projection.evolve(document, event, documentId);
  }
  return document;
};
