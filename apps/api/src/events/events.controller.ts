import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CLOCK, CONFIG } from '#commands';
import { type CursorCodec, apiError, readCursorParam } from '#http';
import type { Clock, ServiceConfig } from '#platform';
import { SERVED_CONTENT_TYPE, feedCutoff, getServedEvent, listServedEvents, servedItem, servedList } from '#read-models';
import type { DocumentStore } from '#read-models';
import { CURSORS, DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { Answers, Authenticated, Operation, Refuses } from '../openapi/operation.decorators.js';
import { list, single } from '../openapi/response-schemas.js';
import { ENVELOPE_SCHEMA_NAME } from '../openapi/webhooks.js';
import { ListEventsQuery } from './events.dto.js';

/**
 * The events feed, in the log's order. A cursor is a place in the log, bound to the workspace and mode
 * only (not the filters), so one stored cursor serves every later poll.
 */
@Controller('v1/events')
@Authenticated('Events')
export class EventsController {
  constructor(
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CURSORS) private readonly cursors: CursorCodec,
    @Inject(CONFIG) private readonly config: ServiceConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @Operation('listEvents', 'List events',
    "The workspace's events for the mode of the key, as the envelopes webhooks carry, oldest first (the log's order), whether or not a webhook address is saved. "
    + '`meta.nextCursor` is always a string: store it and poll from it later; `meta.hasMore` says whether more rows exist now. Events are listed for 30 days.')
  @Answers(200, 'One page of envelopes', list(ENVELOPE_SCHEMA_NAME, 'EventPageMeta'), 'events')
  @Refuses({ 400: ['invalid_parameter', 'invalid_cursor'] })
  async list(@Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: ListEventsQuery) {
    const { workspaceId, mode } = request.apiKey;
    const cursor = readCursorParam(this.cursors, 'events', query.cursor, {}, request.apiKey);
    const cutoff = feedCutoff(await this.clock.now());
    const since = query.since !== undefined && query.since > cutoff ? query.since : cutoff;
    const place = cursor !== null && typeof cursor.s === 'string' && typeof cursor.i === 'string' ? [cursor.s, cursor.i] : null;
    const page = await listServedEvents(this.documents, {
      workspaceId, mode, types: query.type, since, limit: query.limit, after: place ?? undefined,
    });
    // After the last row returned, or where this request stood when none came.
    const next = page.last ?? place;
    const nextCursor = this.cursors.encodeFor('events', { s: next?.[0] ?? null, i: next?.[1] ?? null }, {}, request.apiKey);
    // Rows are sent as the JSON text the read model stored: nothing is parsed or stringified again.
    void reply.type(SERVED_CONTENT_TYPE);
    return servedList(page.rows, { nextCursor, hasMore: page.hasMore }, this.config.appUrl);
  }

  @Get(':eventId')
  @Operation('getEvent', 'Get an event', 'One envelope, as listed. An event of another workspace or mode, or older than 30 days, is 404.')
  @Answers(200, 'The envelope', single(ENVELOPE_SCHEMA_NAME), 'event')
  @Refuses({ 404: ['not_found'] })
  async get(@Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('eventId') eventId: string) {
    const { workspaceId, mode } = request.apiKey;
    const json = await getServedEvent(this.documents, { workspaceId, mode, eventId, since: feedCutoff(await this.clock.now()) });
    if (json === null) throw apiError('not_found');
    void reply.type(SERVED_CONTENT_TYPE);
    return servedItem(json, this.config.appUrl);
  }
}
