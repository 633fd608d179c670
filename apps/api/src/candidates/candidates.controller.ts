import { Controller, Get, Inject, Param, Query, Req, UseGuards } from '@nestjs/common';
import { CONFIG } from '../../../../libs/commands/src/shared/tokens.js';
import { type CursorCodec, apiError, formatTime, parseLimit, parseOptionalString, parseTime, readCursorParam } from '../../../../libs/http/src/index.js';
import type { ServiceConfig } from '../../../../libs/platform/src/config/config.js';
import { getAssessment, getCandidate, listCandidates, toCandidateView } from '../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../libs/read-models/src/shared/document-store.port.js';
import { CURSORS, DOCUMENTS } from '../../../../libs/runtime/src/infrastructure.js';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard.js';

@Controller('v1/candidates')
@UseGuards(ApiKeyGuard)
export class CandidatesController {
  constructor(
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CURSORS) private readonly cursors: CursorCodec,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Get()
  async list(@Req() request: AuthenticatedRequest, @Query() query: Record<string, unknown>) {
    const { workspaceId, mode } = request.apiKey;
    const limit = parseLimit(query.limit);
    const assessmentId = parseOptionalString(query.assessment, 'assessment');
    const email = parseOptionalString(query.email, 'email')?.trim().toLowerCase();
    const updatedSinceDate = parseTime(query.updated_since, 'updated_since');
    const updatedSince = updatedSinceDate ? formatTime(updatedSinceDate) : undefined;
    const filters = { assessmentId: assessmentId ?? null, email: email ?? null, updatedSince: updatedSince ?? null, mode };
    const cursor = readCursorParam(this.cursors, 'candidates', query.cursor, filters);
    if (assessmentId !== undefined && !(await getAssessment(this.documents, workspaceId, assessmentId))) throw apiError('not_found');
    const page = await listCandidates(this.documents, {
      workspaceId, mode, assessmentId, email, updatedSince, limit, after: cursor ? [String(cursor.t), String(cursor.id)] : undefined,
    });
    const nextCursor = page.next ? this.cursors.encodeFor('candidates', { t: String(page.next[0]), id: String(page.next[1]) }, filters) : null;
    return { data: page.items.map((doc) => toCandidateView(doc, this.config.appUrl)), meta: { nextCursor } };
  }

  @Get(':candidateId')
  async get(@Req() request: AuthenticatedRequest, @Param('candidateId') candidateId: string) {
    const doc = await getCandidate(this.documents, request.apiKey.workspaceId, request.apiKey.mode, candidateId);
    if (!doc) throw apiError('not_found');
    return { data: toCandidateView(doc, this.config.appUrl) };
  }
}
