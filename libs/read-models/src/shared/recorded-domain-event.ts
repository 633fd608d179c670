import { type DomainEvent, isDomainEventType } from '#domain';
import type { RecordedEvent } from '#event-store';

type ToRecorded<E> = E extends { type: infer T extends string; data: infer D extends object } ? RecordedEvent<T, D> : never;

/** A recorded event whose `type` narrows its `data`, one member per domain event. */
export type RecordedDomainEvent = ToRecorded<DomainEvent>;

/**
 * The store hands over untyped events; the type name is the only thing checked; the data is
 * trusted because only the domain appends to the store.
 */
export const asDomainEvent = (event: RecordedEvent): RecordedDomainEvent | null =>
  isDomainEventType(event.type) ? (event as RecordedDomainEvent) : null;
