import { Body, Controller, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { AddTestToAssessment, CloseAssessment } from '#commands';
import { CONFIG } from '#commands';
import { apiError } from '#http';
import type { ServiceConfig } from '#platform';
import { toAssessmentView } from '#read-models';
import type { AssessmentDocument } from '#read-models';
import type { DocumentStore } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';
import { internalContext } from '../auth/internal-context.js';
import { InternalRoute } from '../openapi/internal-document.js';
import { JsonBodyUnder } from '../validation/known-ids.js';
import { AddTestBody, testToAdd } from './assessments.dto.js';

@Controller('internal/assessments/:assessmentId')
@UseGuards(InternalTokenGuard)
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
  @HttpCode(200)
  @JsonBodyUnder('assessment')
  @InternalRoute('Append a custom test of the workspace', 200, [404, 409, 422], AddTestBody)
  async addTest(@Req() request: FastifyRequest, @Param('assessmentId') assessmentId: string, @Body() body: AddTestBody) {
    await this.commands.execute(new AddTestToAssessment(assessmentId, testToAdd(body), internalContext(request)));
    return this.view(assessmentId);
  }

  @Post('close')
  @HttpCode(200)
  @InternalRoute('Close the assessment (status archived)', 200, [404])
  async close(@Req() request: FastifyRequest, @Param('assessmentId') assessmentId: string) {
    await this.commands.execute(new CloseAssessment(assessmentId, internalContext(request)));
    return this.view(assessmentId);
  }
}
