import { Controller, Get, Inject, Query, Req, UseGuards } from '@nestjs/common';
import { CONFIG } from '../../../../libs/commands/src/shared/tokens.js';
import { apiError, formatTime, parseEnum, parseLimit, parseOptionalString, parseTime } from '../../../../libs/http/src/index.js';
import type { ServiceConfig } from '../../../../libs/platform/src/config/config.js';
import { getAssessment, listCompletions, toCompletionView } from '../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../libs/read-models/src/shared/document-store.port.js';
import { DOCUMENTS } from '../../../../libs/runtime/src/infrastructure.js';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard.js';

const ORDERS = ['asc', 'desc'] as const;

/** No cursor: integrators poll with `since` and `order=asc`, keeping the last `completedAt`. */
@Controller('v1/completions')
@UseGuards(ApiKeyGuard)
export class CompletionsController {
  constructor(@Inject(DOCUMENTS) private readonly documents: DocumentStore, @Inject(CONFIG) private readonly config: ServiceConfig) {}

  @Get()
  async list(@Req() request: AuthenticatedRequest, @Query() query: Record<string, unknown>) {
    const { workspaceId, mode } = request.apiKey;
    const limit = parseLimit(query.limit);
    const sinceDate = parseTime(query.since, 'since');
    const order = parseEnum(query.order, 'order', ORDERS) ?? 'desc';
    const assessmentId = parseOptionalString(query.assessment, 'assessment');
    if (assessmentId !== undefined && !(await getAssessment(this.documents, workspaceId, assessmentId))) throw apiError('not_found');
    const rows = await listCompletions(this.documents, { workspaceId, mode, assessmentId, since: sinceDate ? formatTime(sinceDate) : undefined, order, limit });
    return { data: rows.map((doc) => toCompletionView(doc, this.config.appUrl)) };
  }
}
