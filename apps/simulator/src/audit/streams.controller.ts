import { Get, Inject, Param } from '@nestjs/common';
import { EVENT_STORE } from '#commands';
import type { EventStore } from '#event-store';
import { apiError } from '#http';
import { InternalController } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { listOf } from '../openapi/internal-schemas.js';

/** The auditors' view of one stream, exactly as recorded, in revision order. */
@InternalController('internal/streams')
export class StreamsController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @Get(':streamId')
  @InternalRoute({
    id: 'readStream', tag: 'Audit', summary: 'Read one stream',
    description: 'Every event of one stream as recorded, in revision order (`workspace-{id}`, `assessment-{id}` or `candidate-{id}`). 404 for a stream without events.',
    answers: [{ status: 200, description: 'The events', schema: listOf('StreamEvent') }],
  })
  async stream(@Param('streamId') streamId: string) {
    const events = await this.store.readStream(streamId);
    if (events.length === 0) throw apiError('not_found');
    return {
      data: events.map((event) => ({
        id: event.id, streamId: event.streamId, revision: event.revision, position: event.position.toString(),
        type: event.type, data: event.data, metadata: event.metadata, recordedAt: event.recordedAt,
      })),
    };
  }
}
