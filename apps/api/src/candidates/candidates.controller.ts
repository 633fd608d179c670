import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CONFIG } from '#commands';
import { type CursorCodec, apiError, readCursorParam } from '#http';
import type { ServiceConfig } from '#platform';
import {
  type DocumentStore, SERVED_CONTENT_TYPE, getAssessment, getCandidate, listServedCandidates, servedList, toCandidateView,
} from '#read-models';
import { CURSORS, DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { Answers, Authenticated, Operation, Refuses } from '../openapi/operation.decorators.js';
import { list as listOf, single } from '../openapi/response-schemas.js';
import { ListCandidatesQuery } from './candidates.dto.js';

@Controller('v1/candidates')
@Authenticated('Candidates')
export class CandidatesController {
  constructor(
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CURSORS) private readonly cursors: CursorCodec,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Get()
  @Operation('listCandidates', 'List candidates', 'Newest first; each row has the shape of a single candidate. Only candidates of the mode of the key.')
  @Answers(200, 'One page of candidates', listOf('Candidate', 'PageMeta'), 'candidates')
  @Refuses({ 400: ['invalid_parameter', 'invalid_cursor'], 404: ['not_found'] })
  async list(@Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: ListCandidatesQuery) {
    const { workspaceId, mode } = request.apiKey;
    const { limit, assessment: assessmentId, updated_since: updatedSince } = query;
    const email = query.email?.trim().toLowerCase();
    const filters = { assessmentId: assessmentId ?? null, email: email ?? null, updatedSince: updatedSince ?? null, mode };
    const cursor = readCursorParam(this.cursors, 'candidates', query.cursor, filters, request.apiKey);
    if (assessmentId !== undefined && !(await getAssessment(this.documents, workspaceId, assessmentId))) throw apiError('not_found');
    const page = await listServedCandidates(this.documents, {
      workspaceId, mode, assessmentId, email, updatedSince, limit, after: cursor ? [String(cursor.t), String(cursor.id)] : undefined,
    });
    const nextCursor = page.next ? this.cursors.encodeFor('candidates', { t: String(page.next[0]), id: String(page.next[1]) }, filters, request.apiKey) : null;
    // Rows are sent as the JSON text the read model stored: nothing is parsed or stringified again.
    void reply.type(SERVED_CONTENT_TYPE);
    return servedList(page.rows, { nextCursor }, this.config.appUrl);
  }

  @Get(':candidateId')
  @Operation('getCandidate', 'Get a candidate', "Only the workspace's own assessments and results.")
  @Answers(200, 'The candidate', single('Candidate'), 'candidate')
  @Refuses({ 404: ['not_found'] })
  async get(@Req() request: AuthenticatedRequest, @Param('candidateId') candidateId: string) {
    const doc = await getCandidate(this.documents, request.apiKey.workspaceId, request.apiKey.mode, candidateId);
    if (!doc) throw apiError('not_found');
    return { data: toCandidateView(doc, this.config.appUrl) };
  }
}
