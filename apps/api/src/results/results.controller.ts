import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CONFIG } from '#commands';
import { type CursorCodec, apiError, readCursorParam } from '#http';
import type { ServiceConfig } from '#platform';
import { getAssessment, listServedResults, SERVED_CONTENT_TYPE, servedList, type DocumentStore } from '#read-models';
import { CURSORS, DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { Answers, Authenticated, Operation, Refuses } from '../openapi/operation.decorators.js';
import { list } from '../openapi/response-schemas.js';
import { ListResultsQuery } from './results.dto.js';

@Controller('v1/results')
@Authenticated('Results')
export class ResultsController {
  constructor(
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CURSORS) private readonly cursors: CursorCodec,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** Oldest first by completedAt for syncing forward; `unlocked_since` sorts by unlock time and has no cursor. */
  @Get()
  @Operation('listResults', 'List completed tests', 'Oldest first by default, for syncing forward: follow `meta.nextCursor` to the end, then keep the last `completedAt` for the next `since`.')
  @Answers(200, 'One page of results, each with its candidate, assessment and report link', list('ResultListItem', 'PageMeta'), 'results')
  @Refuses({ 400: ['invalid_parameter', 'invalid_cursor'], 404: ['not_found'] })
  async list(@Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: ListResultsQuery) {
    const { workspaceId, mode } = request.apiKey;
    const { limit, since, unlocked_since: unlockedSince, order, assessment: assessmentId } = query;
    const filters = { since: since ?? null, order, assessmentId: assessmentId ?? null, mode };
    const cursor = unlockedSince === undefined ? readCursorParam(this.cursors, 'results', query.cursor, filters, request.apiKey) : null;
    if (assessmentId !== undefined && !(await getAssessment(this.documents, workspaceId, assessmentId))) throw apiError('not_found');
    const page = await listServedResults(this.documents, {
      workspaceId, mode, assessmentId, since, unlockedSince, order, limit, after: cursor ? [String(cursor.t), String(cursor.id)] : undefined,
    });
    const nextCursor = page.next && unlockedSince === undefined
      ? this.cursors.encodeFor('results', { t: String(page.next[0]), id: String(page.next[1]) }, filters, request.apiKey)
      : null;
    // Rows are sent as the JSON text the read model stored: nothing is parsed or stringified again.
    void reply.type(SERVED_CONTENT_TYPE);
    return servedList(page.rows, { nextCursor }, this.config.appUrl);
  }
}
