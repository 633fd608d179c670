import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { CONFIG } from '#commands';
import { apiError } from '#http';
import type { ServiceConfig } from '#platform';
import { getAssessment, listCompletions, toCompletionView, type DocumentStore } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { Answers, Authenticated, Operation, Refuses } from '../openapi/operation.decorators.js';
import { list } from '../openapi/response-schemas.js';
import { ListCompletionsQuery } from './completions.dto.js';

/** No cursor: integrators poll with `since` (or `updated_since`) and `order=asc`, keeping the last time seen. */
@Controller('v1/completions')
@Authenticated('Completions')
export class CompletionsController {
  constructor(@Inject(DOCUMENTS) private readonly documents: DocumentStore, @Inject(CONFIG) private readonly config: ServiceConfig) {}

  @Get()
  @Operation('listCompletions', 'List finished assessments', 'Candidates who finished every test of one of the workspace\'s assessments. No cursor: poll with `since` and `order=asc`, keeping the last `completedAt`; to pick up later unlocks, poll with `updated_since` and `order=asc`, keeping the last `updatedAt`.')
  @Answers(200, 'Finished assessments', list('Completion'), 'completions')
  @Refuses({ 400: ['invalid_parameter'], 404: ['not_found'] })
  async list(@Req() request: AuthenticatedRequest, @Query() query: ListCompletionsQuery) {
    const { workspaceId, mode } = request.apiKey;
    const { limit, since, updated_since: updatedSince, order, assessment: assessmentId } = query;
    if (assessmentId !== undefined && !(await getAssessment(this.documents, workspaceId, assessmentId))) throw apiError('not_found');
    const rows = await listCompletions(this.documents, { workspaceId, mode, assessmentId, since, updatedSince, order, limit });
    return { data: rows.map((doc) => toCompletionView(doc, this.config.appUrl)) };
  }
}
