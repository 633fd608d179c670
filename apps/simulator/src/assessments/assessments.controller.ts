import { Body, Inject, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { AddTestToAssessment, CONFIG, CloseAssessment } from '#commands';
import { JsonBody, apiError } from '#http';
import type { ServiceConfig } from '#platform';
import { type AssessmentDocument, type DocumentStore, toAssessmentView } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import { InternalController } from '../auth/internal-token.guard.js';
import { internalContext } from '../auth/internal-context.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { single } from '../openapi/internal-schemas.js';
import { requireKnownAssessment } from '../validation/known-ids.js';
import { validatedBody } from '../validation/validated-body.js';
import { AddTestBody, testToAdd } from './assessments.dto.js';

@InternalController('internal/assessments/:assessmentId')
export class AssessmentsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** The application shows live counts; the mode-specific count is the public API's business. */
  private async view(assessmentId: string) {
    const doc = await this.documents.get<AssessmentDocument>('assessments', assessmentId);
    if (!doc) throw apiError('not_found');
    return { data: toAssessmentView(doc, 'live', this.config.appUrl) };
  }

  @Post('tests')
  @JsonBody()
  @InternalRoute({
    id: 'addTestToAssessment', tag: 'Assessments', summary: 'Append a custom test',
    description: "Appends a custom test of the assessment's workspace after its tests. A closed assessment: 409 invalid_state; a slug that is not a custom test of the workspace, already on the assessment, or an 11th test: 422. An unknown assessment is refused (404) before a bad body.",
    answers: [{ status: 200, description: 'The assessment (live candidateCount)', schema: single('Assessment') }],
    refuses: { 409: ['invalid_state'] },
    body: AddTestBody,
  })
  async addTest(@Req() request: FastifyRequest, @Param('assessmentId') assessmentId: string, @Body() body: object) {
    await requireKnownAssessment(this.documents, assessmentId);
    const test = testToAdd(await validatedBody(AddTestBody, body));
    await this.commands.execute(new AddTestToAssessment(assessmentId, test, internalContext(request)));
    return this.view(assessmentId);
  }

  @Post('close')
  @InternalRoute({
    id: 'closeAssessment', tag: 'Assessments', summary: 'Close an assessment',
    description: 'The assessment becomes `archived`: no more invitations, registrations or finished tests. Closing again answers the same.',
    answers: [{ status: 200, description: 'The assessment, archived (live candidateCount)', schema: single('Assessment') }],
  })
  async close(@Req() request: FastifyRequest, @Param('assessmentId') assessmentId: string) {
    await this.commands.execute(new CloseAssessment(assessmentId, internalContext(request)));
    return this.view(assessmentId);
  }
}
