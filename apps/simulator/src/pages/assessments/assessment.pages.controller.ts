import { Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AddTestToAssessment, CloseAssessment } from '#commands';
import { apiError } from '#http';
import {
  assessmentsProjection, inviteUrl, listAssessments, listCandidatesOfAssessment, listPendingInvitationsOfAssessment, type AssessmentDocument,
} from '#read-models';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { AddTestBody, testToAdd } from '../../assessments/assessments.dto.js';
import { internalContext } from '../../auth/internal-context.js';
import { requireKnownAssessment } from '../../validation/known-ids.js';
import { validatedBody } from '../../validation/validated-body.js';
import { pageContext } from '../shared/page-context.js';
import { decodePageCursor, encodePageCursor } from '../shared/page-cursor.js';
import { publicBaseUrl, requireWorkspace } from '../shared/page-data.js';
import { field, queryParam } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';
import { assessmentListPage, assessmentPath } from './assessment-list.view.js';
import { assessmentPage } from './assessment.view.js';

const PAGE_SIZE = 25;
const SHOWN_PER_LIST = 200;

/** A workspace's assessments, and one assessment with its tests, invitations and candidates. */
@PagesController()
export class AssessmentPagesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly responder: PageResponder,
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
  ) {}

  @Get('workspaces/:workspaceId/assessments')
  async list(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('workspaceId') workspaceId: string): Promise<void> {
    const workspace = await requireWorkspace(this.infra.documents, workspaceId);
    const page = await listAssessments(this.infra.documents, workspaceId, { limit: PAGE_SIZE, after: decodePageCursor(queryParam(request, 'after')) });
    this.responder.show(request, reply, assessmentListPage(workspace, page.items, encodePageCursor(page.next), publicBaseUrl(this.infra.config)));
  }

  @Get('assessments/:assessmentId')
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('assessmentId') assessmentId: string): Promise<void> {
    const { documents, config } = this.infra;
    const assessment = await documents.get<AssessmentDocument>(assessmentsProjection.name, assessmentId);
    if (!assessment) throw apiError('not_found');
    const [workspace, invitations, candidates] = await Promise.all([
      requireWorkspace(documents, assessment.workspaceId),
      listPendingInvitationsOfAssessment(documents, assessmentId, SHOWN_PER_LIST),
      listCandidatesOfAssessment(documents, assessmentId, SHOWN_PER_LIST),
    ]);
    this.responder.show(request, reply, assessmentPage(pageContext(request), {
      workspace, assessment, invitations, candidates, appUrl: config.appUrl, inviteUrl: inviteUrl(config.appUrl, assessment.id, assessment.inviteToken),
    }));
  }

  @Post('assessments/:assessmentId/close')
  async close(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('assessmentId') assessmentId: string): Promise<void> {
    await this.commands.execute(new CloseAssessment(assessmentId, internalContext(request)));
    this.responder.done(reply, assessmentPath(assessmentId), 'Assessment closed (archived).');
  }

  @Post('assessments/:assessmentId/tests')
  async addTest(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('assessmentId') assessmentId: string): Promise<void> {
    await requireKnownAssessment(this.infra.documents, assessmentId);
    const test = testToAdd(await validatedBody(AddTestBody, { slug: field(request, 'slug') }));
    await this.commands.execute(new AddTestToAssessment(assessmentId, test, internalContext(request)));
    this.responder.done(reply, assessmentPath(assessmentId), `Test ${test.slug} appended.`);
  }
}
