import { Body, Delete, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONFIG, CompleteTest, DeleteCandidate, RegisterCandidate, StartAssessment, UnlockResult } from '#commands';
import { JsonBody } from '#http';
import type { ServiceConfig } from '#platform';
import type { DocumentStore } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import { InternalController } from '../auth/internal-token.guard.js';
import { internalContext, optionalBody } from '../auth/internal-context.js';
import { INTERNAL_EXAMPLES } from '../openapi/internal-examples.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { single } from '../openapi/internal-schemas.js';
import { requireKnownCandidateAndAssessment, requireKnownSignUpLink } from '../validation/known-ids.js';
import { validatedBody } from '../validation/validated-body.js';
import { CompleteTestBody, RegistrationBody, registrationOf, resultScores } from './candidates.dto.js';

/** The candidate's side of the world: registering, starting, finishing tests; and the recruiter's unlock. */
@InternalController()
export class CandidatesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post('registrations')
  @JsonBody()
  @InternalRoute({
    id: 'registerCandidate', tag: 'Candidates', summary: 'Register a candidate',
    description: 'What a person does on an invitation link (`{ invitationUrl }`: the invited person, in the mode of the invitation) or on the sign-up link (`{ inviteUrl, email, firstName?, surname? }`: always a live candidate). 404 for a link the service did not issue; 409 for a closed assessment or one past its deadline (invalid_state), or an address that is a candidate of the other mode.',
    answers: [
      { status: 200, description: 'Already registered: the same ids', schema: single('Registration'), example: INTERNAL_EXAMPLES.answers.registerCandidateAgain },
      { status: 201, description: 'Registered', schema: single('Registration') },
    ],
    refuses: { 404: ['not_found'], 409: ['invalid_state', 'live_candidate', 'sandbox_candidate'] },
    body: RegistrationBody,
  })
  // Judged by registrationOf in stages (a sign-up's unknown link before its person), not by the parameter's type: the global pipe leaves a plain object alone.
  async register(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: object) {
    const asked = await registrationOf(body, (inviteUrl) => requireKnownSignUpLink(this.documents, inviteUrl, this.config.appUrl));
    const { created, candidateId, assessmentId } = await this.commands.execute(new RegisterCandidate(asked, internalContext(request)));
    void reply.status(created ? 201 : 200);
    return { data: { candidateId, assessmentId } };
  }

  @Post('candidates/:candidateId/assessments/:assessmentId/start')
  @InternalRoute({
    id: 'startAssessment', tag: 'Candidates', summary: 'Start an assessment',
    description: 'The candidate starts the assessment they are registered on (an empty body, or any JSON object). Starting again changes nothing. Not registered on it, closed, or past its deadline: 409 invalid_state.',
    answers: [{ status: 200, description: 'The progress', schema: single('StartedAssessment') }],
    refuses: { 409: ['invalid_state'] },
  })
  async start(@Req() request: FastifyRequest, @Param('candidateId') candidateId: string, @Param('assessmentId') assessmentId: string) {
    optionalBody(request);
    return { data: await this.commands.execute(new StartAssessment(candidateId, assessmentId, internalContext(request))) };
  }

  @Post('candidates/:candidateId/assessments/:assessmentId/tests/:slug/complete')
  @JsonBody()
  @InternalRoute({
    id: 'completeTest', tag: 'Candidates', summary: 'Finish a test',
    description: 'The candidate finishes one test of the assessment with its scores (starting the assessment if needed); the result is locked until unlocked. A test finished twice: 409 already_completed; not registered, a test not of the assessment, closed: 409 invalid_state. An unknown candidate or assessment is refused (404) before a bad body (422).',
    answers: [{ status: 201, description: 'The new result', schema: single('CompletedTest') }],
    refuses: { 409: ['invalid_state', 'already_completed'] },
    body: CompleteTestBody,
  })
  async complete(
    @Req() request: FastifyRequest,
    @Param('candidateId') candidateId: string,
    @Param('assessmentId') assessmentId: string,
    @Param('slug') slug: string,
    @Body() body: object,
  ) {
    await requireKnownCandidateAndAssessment(this.documents, candidateId, assessmentId);
    const scores = resultScores(await validatedBody(CompleteTestBody, body));
    return { data: await this.commands.execute(new CompleteTest(candidateId, assessmentId, slug, scores, internalContext(request))) };
  }

  @Post('results/:resultId/unlock')
  @InternalRoute({
    id: 'unlockResult', tag: 'Candidates', summary: 'Unlock a result',
    description: "The recruiter unlocks a result: its scores become readable. A live candidate is billed once, at the first unlock past the workspace's free allowance (`charged: true`). Unlocking again answers the first `unlockedAt` and `charged: false`.",
    answers: [{ status: 200, description: 'The unlock', schema: single('UnlockedResult') }],
  })
  async unlock(@Req() request: FastifyRequest, @Param('resultId') resultId: string) {
    return { data: await this.commands.execute(new UnlockResult(resultId, internalContext(request))) };
  }

  @Delete('candidates/:candidateId')
  @InternalRoute({
    id: 'deleteTestCandidate', tag: 'Candidates', summary: 'Delete a test candidate',
    description: 'A test (sandbox) candidate and their personal data are deleted; a live candidate: 409 not_a_test_candidate.',
    answers: [{ status: 204, description: 'Deleted' }],
    refuses: { 409: ['not_a_test_candidate'] },
  })
  async remove(@Req() request: FastifyRequest, @Param('candidateId') candidateId: string): Promise<void> {
    // The erasure follows from the CandidateDeleted event (the dispatcher), whichever route deleted them.
    await this.commands.execute(new DeleteCandidate(candidateId, internalContext(request)));
  }
}
