import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CONFIG } from '#commands';
import { type CursorCodec, apiError, readCursorParam } from '#http';
import type { ServiceConfig } from '#platform';
import { SERVED_CONTENT_TYPE, getAssessment, listServedInvitations, servedList, type DocumentStore } from '#read-models';
import { CURSORS, DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { Answers, Authenticated, Operation, Refuses } from '../openapi/operation.decorators.js';
import { list as listOf } from '../openapi/response-schemas.js';
import { ListInvitationsQuery } from './list-invitations.dto.js';

/** The invitations of an assessment (API 1.2.0), from the `assessment-invitations` read model. */
@Controller('v1/assessments/:assessmentId/invitations')
@Authenticated('Invitations')
export class ListInvitationsController {
  constructor(
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CURSORS) private readonly cursors: CursorCodec,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Get()
  @Operation(
    'listInvitations',
    'List the invitations of an assessment',
    'Newest invitation first; only invitations made with a key of the mode of this key. An address refused in an invitation request '
      + '(`failed`) never has a row; one answered `already_invited` keeps its one row. An invitation of a deleted test candidate is not listed.',
  )
  @Answers(200, 'One page of invitations', listOf('Invitation', 'PageMeta'), 'invitationsList')
  @Refuses({ 400: ['invalid_parameter', 'invalid_cursor'], 404: ['not_found'] })
  async list(
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('assessmentId') assessmentId: string,
    @Query() query: ListInvitationsQuery,
  ) {
    const { workspaceId, mode } = request.apiKey;
    const { limit, status } = query;
    // A cursor belongs to its assessment and status filter (and, through its scope, to the workspace and mode).
    const filters = { assessmentId, status: status ?? null };
    const cursor = readCursorParam(this.cursors, 'invitations', query.cursor, filters, request.apiKey);
    if (!(await getAssessment(this.documents, workspaceId, assessmentId))) throw apiError('not_found');
    const page = await listServedInvitations(this.documents, {
      assessmentId, mode, status, limit, after: cursor ? [String(cursor.t), String(cursor.id)] : undefined,
    });
    const nextCursor = page.next ? this.cursors.encodeFor('invitations', { t: String(page.next[0]), id: String(page.next[1]) }, filters, request.apiKey) : null;
    // Rows are sent as the JSON text the read model stored: nothing is parsed or stringified again.
    void reply.type(SERVED_CONTENT_TYPE);
    return servedList(page.rows, { nextCursor }, this.config.appUrl);
  }
}
