import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CreateAssessment, CONFIG } from '#commands';
import { type CursorCodec, RequiredJsonBody, apiError, readCursorParam } from '#http';
import type { ServiceConfig } from '#platform';
import { getAssessment, listAssessments, toAssessmentView, type DocumentStore } from '#read-models';
import { CURSORS, DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { requestContext } from '../auth/request-context.js';
import { Answers, Authenticated, Operation, Refuses } from '../openapi/operation.decorators.js';
import { list as listOf, single } from '../openapi/response-schemas.js';
import { CreateAssessmentBody, ListAssessmentsQuery } from './assessments.dto.js';

@Controller('v1/assessments')
@Authenticated('Assessments')
export class AssessmentsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CURSORS) private readonly cursors: CursorCodec,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @UseInterceptors(RequiredJsonBody)
  @Operation('createAssessment', 'Create an assessment', 'From one to ten catalogue tests; candidates sit them in the given order.')
  @Answers(201, 'The new assessment, with its id and inviteUrl', single('Assessment'), 'assessment')
  @Refuses({ 400: ['invalid_json'], 422: ['validation_failed', 'unknown_test'] })
  async create(@Req() request: AuthenticatedRequest, @Body() body: CreateAssessmentBody) {
    const { workspaceId, mode, apiKeyId } = request.apiKey;
    const { assessmentId } = await this.commands.execute(new CreateAssessment(workspaceId, body, requestContext(request, apiKeyId)));
    const doc = await getAssessment(this.documents, workspaceId, assessmentId);
    if (!doc) throw apiError('server_error');
    return { data: toAssessmentView(doc, mode, this.config.appUrl) };
  }

  @Get()
  @Operation('listAssessments', 'List assessments', 'Newest first; both statuses unless `status` is given. Follow `meta.nextCursor` to the end.')
  @Answers(200, 'One page of assessments', listOf('Assessment', 'PageMeta'), 'assessments')
  @Refuses({ 400: ['invalid_parameter', 'invalid_cursor'] })
  async list(@Req() request: AuthenticatedRequest, @Query() query: ListAssessmentsQuery) {
    const { limit, status } = query;
    const filters = { status: status ?? null };
    const cursor = readCursorParam(this.cursors, 'assessments', query.cursor, filters, request.apiKey);
    const after = cursor ? [String(cursor.t), String(cursor.id)] : undefined;
    const { workspaceId, mode } = request.apiKey;
    const page = await listAssessments(this.documents, workspaceId, { status, limit, after });
    const next = page.next ? this.cursors.encodeFor('assessments', { t: String(page.next[0]), id: String(page.next[1]) }, filters, request.apiKey) : null;
    return { data: page.items.map((doc) => toAssessmentView(doc, mode, this.config.appUrl)), meta: { nextCursor: next } };
  }

  @Get(':assessmentId')
  @Operation('getAssessment', 'Get an assessment', 'One assessment of the workspace, whichever mode created it; `candidateCount` counts the candidates of the mode of the key.')
  @Answers(200, 'The assessment', single('Assessment'), 'assessment')
  @Refuses({ 404: ['not_found'] })
  async get(@Req() request: AuthenticatedRequest, @Param('assessmentId') assessmentId: string) {
    const doc = await getAssessment(this.documents, request.apiKey.workspaceId, assessmentId);
    if (!doc) throw apiError('not_found');
    return { data: toAssessmentView(doc, request.apiKey.mode, this.config.appUrl) };
  }
}
