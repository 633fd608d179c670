import type { EventStore, InlineProjector } from '#event-store';

/** The inline projectors of this process; added as the parts that own their tables start. */
export class InlineProjectors {
  private readonly projectors: InlineProjector[] = [];

  constructor(private readonly eventStore: EventStore) {}

  add(projector: InlineProjector): void {
    this.projectors.push(projector);
    this.eventStore.useInlineProjectors?.([...this.projectors]);
  }
}
