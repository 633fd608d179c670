import { Body, Controller, Delete, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONFIG, CompleteTest, DeleteCandidate, RegisterCandidate, StartAssessment, UnlockResult } from '#commands';
import { JsonBody } from '#http';
import type { ServiceConfig } from '#platform';
import type { DocumentStore } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';
import { internalContext, optionalBody } from '../auth/internal-context.js';
import { InternalRoute } from '../openapi/internal-document.js';
import { JsonBodyUnder, requireKnownSignUpLink } from '../validation/known-ids.js';
import { CompleteTestBody, RegistrationBody, registrationOf, resultScores } from './candidates.dto.js';

/** The candidate's side of the world: registering, starting, finishing tests; and the recruiter's unlock. */
@Controller('internal')
@UseGuards(InternalTokenGuard)
export class CandidatesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post('registrations')
  @JsonBody()
  @InternalRoute('Register a candidate (201; 200 when already registered)', 201, [404, 409, 422], RegistrationBody)
  @ApiResponse({ status: 200, description: 'Already registered: the same ids' })
  // Judged by registrationOf in stages (a sign-up's unknown link before its person), not by the parameter's type: the global pipe leaves a plain object alone.
  async register(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: object) {
    const asked = await registrationOf(body, (inviteUrl) => requireKnownSignUpLink(this.documents, inviteUrl, this.config.appUrl));
    const { created, candidateId, assessmentId } = await this.commands.execute(new RegisterCandidate(asked, internalContext(request)));
    void reply.status(created ? 201 : 200);
    return { data: { candidateId, assessmentId } };
  }

  @Post('candidates/:candidateId/assessments/:assessmentId/start')
  @HttpCode(200)
  @InternalRoute('Start the assessment (an empty body, or a JSON object)', 200, [400, 404, 409])
  async start(@Req() request: FastifyRequest, @Param('candidateId') candidateId: string, @Param('assessmentId') assessmentId: string) {
    optionalBody(request);
    return { data: await this.commands.execute(new StartAssessment(candidateId, assessmentId, internalContext(request))) };
  }

  @Post('candidates/:candidateId/assessments/:assessmentId/tests/:slug/complete')
  @HttpCode(201)
  @JsonBodyUnder('candidate and assessment')
  @InternalRoute('Finish a test with its scores', 201, [404, 409, 422], CompleteTestBody)
  async complete(
    @Req() request: FastifyRequest,
    @Param('candidateId') candidateId: string,
    @Param('assessmentId') assessmentId: string,
    @Param('slug') slug: string,
    @Body() body: CompleteTestBody,
  ) {
    return { data: await this.commands.execute(new CompleteTest(candidateId, assessmentId, slug, resultScores(body), internalContext(request))) };
  }

  @Post('results/:resultId/unlock')
  @HttpCode(200)
  @InternalRoute('Unlock a result (bills a live candidate once past the free allowance)', 200, [404])
  async unlock(@Req() request: FastifyRequest, @Param('resultId') resultId: string) {
    return { data: await this.commands.execute(new UnlockResult(resultId, internalContext(request))) };
  }

  @Delete('candidates/:candidateId')
  @HttpCode(204)
  @InternalRoute('Delete a test candidate and their personal data', 204, [404, 409])
  async remove(@Req() request: FastifyRequest, @Param('candidateId') candidateId: string): Promise<void> {
    // The erasure follows from the CandidateDeleted event (the dispatcher), whichever route deleted them.
    await this.commands.execute(new DeleteCandidate(candidateId, internalContext(request)));
  }
}
