import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CreateAssessment } from '../../../../libs/commands/src/index.js';
import { CONFIG } from '../../../../libs/commands/src/shared/tokens.js';
import { type CursorCodec, apiError, parseEnum, parseJsonObjectBody, parseLimit, readCursorParam } from '../../../../libs/http/src/index.js';
import type { ServiceConfig } from '../../../../libs/platform/src/config/config.js';
import { getAssessment, listAssessments, toAssessmentView } from '../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../libs/read-models/src/shared/document-store.port.js';
import { CURSORS, DOCUMENTS } from '../../../../libs/runtime/src/infrastructure.js';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard.js';
import { requestContext } from '../auth/request-context.js';

const STATUSES = ['active', 'archived'] as const;

@Controller('v1/assessments')
@UseGuards(ApiKeyGuard)
export class AssessmentsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CURSORS) private readonly cursors: CursorCodec,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@Req() request: AuthenticatedRequest) {
    const body = parseJsonObjectBody(request.body as string | undefined);
    const { workspaceId, mode, apiKeyId } = request.apiKey;
    const { assessmentId } = await this.commands.execute(new CreateAssessment(workspaceId, body, requestContext(request, apiKeyId)));
    const doc = await getAssessment(this.documents, workspaceId, assessmentId);
    if (!doc) throw apiError('server_error');
    return { data: toAssessmentView(doc, mode, this.config.appUrl) };
  }

  @Get()
  async list(@Req() request: AuthenticatedRequest, @Query() query: Record<string, unknown>) {
    const limit = parseLimit(query.limit);
    const status = parseEnum(query.status, 'status', STATUSES);
    const filters = { status: status ?? null };
    const cursor = readCursorParam(this.cursors, 'assessments', query.cursor, filters);
    const after = cursor ? [String(cursor.t), String(cursor.id)] : undefined;
    const { workspaceId, mode } = request.apiKey;
    const page = await listAssessments(this.documents, workspaceId, { status, limit, after });
    const next = page.next ? this.cursors.encodeFor('assessments', { t: String(page.next[0]), id: String(page.next[1]) }, filters) : null;
    return { data: page.items.map((doc) => toAssessmentView(doc, mode, this.config.appUrl)), meta: { nextCursor: next } };
  }

  @Get(':assessmentId')
  async get(@Req() request: AuthenticatedRequest, @Param('assessmentId') assessmentId: string) {
    const doc = await getAssessment(this.documents, request.apiKey.workspaceId, assessmentId);
    if (!doc) throw apiError('not_found');
    return { data: toAssessmentView(doc, request.apiKey.mode, this.config.appUrl) };
  }
}
