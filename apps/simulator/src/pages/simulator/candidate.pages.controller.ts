import { Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CompleteTest, DeleteCandidate, LOOKUPS, StartAssessment, UnlockResult, type WriteLookups } from '#commands';
import { apiError } from '#http';
import { assessmentsProjection, candidatesProjection, getWorkspace, type AssessmentDocument, type CandidateDocument } from '#read-models';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { internalContext } from '../../auth/internal-context.js';
import { CompleteTestBody, resultScores } from '../../candidates/candidates.dto.js';
import { requireKnownCandidateAndAssessment } from '../../validation/known-ids.js';
import { validatedBody } from '../../validation/validated-body.js';
import { pageContext } from '../shared/page-context.js';
import { queryParam } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';
import { publicCandidateAnswer } from '../shared/public-views.js';
import { candidatePage, candidatePath } from './candidate.view.js';
import { reportPage } from './report.view.js';
import { scoresBody } from './scores-form.js';

/** The candidate's side of a demo and the recruiter's unlock; after each step the page shows the public API's answer. */
@PagesController()
export class CandidatePagesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly responder: PageResponder,
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
    @Inject(LOOKUPS) private readonly lookups: WriteLookups,
  ) {}

  private async candidate(candidateId: string): Promise<CandidateDocument> {
    const candidate = await this.infra.documents.get<CandidateDocument>(candidatesProjection.name, candidateId);
    if (!candidate) throw apiError('not_found');
    return candidate;
  }

  @Get('candidates/:candidateId')
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('candidateId') candidateId: string): Promise<void> {
    const { documents, config } = this.infra;
    const candidate = await this.candidate(candidateId);
    const [workspace, assessments, publicAnswer] = await Promise.all([
      getWorkspace(documents, candidate.workspaceId),
      documents.getMany<AssessmentDocument>(assessmentsProjection.name, candidate.assessmentIds),
      publicCandidateAnswer(documents, config.appUrl, candidate),
    ]);
    this.responder.show(request, reply, candidatePage(pageContext(request), {
      candidate, workspace, assessments, publicAnswer, focusAssessmentId: queryParam(request, 'assessment'),
    }));
  }

  @Get('candidates/:candidateId/report')
  async report(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('candidateId') candidateId: string): Promise<void> {
    const candidate = await this.candidate(candidateId);
    const publicAnswer = await publicCandidateAnswer(this.infra.documents, this.infra.config.appUrl, candidate);
    if (!publicAnswer) throw apiError('not_found');
    this.responder.show(request, reply, reportPage(publicAnswer.data, candidate.mode));
  }

  @Post('candidates/:candidateId/assessments/:assessmentId/start')
  async start(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('candidateId') candidateId: string, @Param('assessmentId') assessmentId: string): Promise<void> {
    await this.commands.execute(new StartAssessment(candidateId, assessmentId, internalContext(request)));
    this.responder.done(reply, candidatePath(candidateId, assessmentId), 'Assessment started (assessmentStarted).');
  }

  @Post('candidates/:candidateId/assessments/:assessmentId/tests/:slug/complete')
  async complete(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('candidateId') candidateId: string,
    @Param('assessmentId') assessmentId: string,
    @Param('slug') slug: string,
  ): Promise<void> {
    // An unknown candidate or assessment before a bad form, as the command always answered.
    await requireKnownCandidateAndAssessment(this.infra.documents, candidateId, assessmentId);
    const scores = resultScores(await validatedBody(CompleteTestBody, scoresBody(request)));
    const { resultId, assessmentCompleted } = await this.commands.execute(new CompleteTest(candidateId, assessmentId, slug, scores, internalContext(request)));
    const message = `Test ${slug} finished: result ${resultId}, locked until unlocked.${assessmentCompleted ? ' Every test is done: the assessment is completed.' : ''}`;
    this.responder.done(reply, candidatePath(candidateId, assessmentId), message);
  }

  @Post('results/:resultId/unlock')
  async unlock(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('resultId') resultId: string): Promise<void> {
    const { unlockedAt, charged } = await this.commands.execute(new UnlockResult(resultId, internalContext(request)));
    const candidateId = await this.lookups.candidateOfResult(resultId);
    const message = `Result ${resultId} unlocked at ${unlockedAt}. ${charged ? 'This unlock billed the candidate (charged: true).' : 'Not charged (charged: false).'}`;
    this.responder.done(reply, candidateId ? candidatePath(candidateId) : '/simulator', message);
  }

  @Post('candidates/:candidateId/delete')
  async remove(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('candidateId') candidateId: string): Promise<void> {
    await this.commands.execute(new DeleteCandidate(candidateId, internalContext(request)));
    this.responder.done(reply, '/simulator', `Test candidate ${candidateId} deleted: GET /v1/candidates/${candidateId} now answers 404 not_found.`);
  }
}
