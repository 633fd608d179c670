import { Get, Inject, Param, Query } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { assessmentStream, candidateStream } from '#domain';
import { apiError, parseTime } from '#http';
import {
  assessmentsProjection, candidatesProjection, documentAsOf, toAssessmentView, toCandidateView, type AsOf,
} from '#read-models';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { InternalController } from '../auth/internal-token.guard.js';
import { INTERNAL_EXAMPLES } from '../openapi/internal-examples.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { single } from '../openapi/internal-schemas.js';

/** `at` in the document: required, and 400 invalid_parameter when it breaks the contract's time rules. */
const AtParameter = () =>
  ApiQuery({ name: 'at', required: true, description: 'A date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset: the domain time to answer as of', schema: { type: 'string' } });

/**
 * Time travel for auditors: what `GET /v1/candidates/{id}` and `GET /v1/assessments/{id}` answered
 * at a domain time, rebuilt from the events up to it through the read models' own projections (in
 * memory, so nothing stored is touched). `at` follows the contract's time rules.
 */
@InternalController('internal/as-of')
export class AsOfController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get('candidates/:candidateId')
  @InternalRoute({
    id: 'getCandidateAsOf', tag: 'Audit', summary: 'A candidate as of a past time',
    description: "What `GET /v1/candidates/{id}` answered at a domain time, for the candidate's own mode, rebuilt from the events up to it (nothing stored is touched). 404 before the candidate existed; `at` missing or malformed: 400 invalid_parameter.",
    answers: [{ status: 200, description: 'The candidate as it was', schema: single('Candidate'), example: INTERNAL_EXAMPLES.answers.candidateAsOf }],
    refuses: { 400: ['invalid_parameter'] },
  })
  @AtParameter()
  async candidate(@Param('candidateId') candidateId: string, @Query() query: Record<string, unknown>) {
    const asOf = requiredTime(query.at);
    const events = await this.infra.eventStore.readStream(candidateStream(candidateId));
    const doc = documentAsOf(candidatesProjection, candidateId, events, asOf);
    if (doc === null) throw apiError('not_found');
    return { data: toCandidateView(doc, this.infra.config.appUrl) };
  }

  /** `mode` (live by default) picks whose `candidateCount` is shown, as the reading key's mode does in the API. */
  @Get('assessments/:assessmentId')
  @InternalRoute({
    id: 'getAssessmentAsOf', tag: 'Audit', summary: 'An assessment as of a past time',
    description: 'What `GET /v1/assessments/{id}` answered at a domain time to a key of `mode`, rebuilt from the events up to it (nothing stored is touched). 404 before the assessment existed; `at` missing or malformed, or another `mode`: 400 invalid_parameter.',
    answers: [{ status: 200, description: 'The assessment as it was', schema: single('Assessment'), example: INTERNAL_EXAMPLES.answers.assessmentAsOf }],
    refuses: { 400: ['invalid_parameter'] },
  })
  @AtParameter()
  @ApiQuery({ name: 'mode', required: false, description: 'Whose candidateCount: live (default) or sandbox', schema: { type: 'string', enum: ['live', 'sandbox'], default: 'live' } })
  async assessment(@Param('assessmentId') assessmentId: string, @Query() query: Record<string, unknown>) {
    const asOf = requiredTime(query.at);
    const mode = query.mode ?? 'live';
    if (mode !== 'live' && mode !== 'sandbox') throw apiError('invalid_parameter', 'mode must be live or sandbox.');
    const events = await this.infra.eventStore.readStream(assessmentStream(assessmentId));
    const doc = documentAsOf(assessmentsProjection, assessmentId, events, asOf);
    if (doc === null) throw apiError('not_found');
    return { data: toAssessmentView(doc, mode, this.infra.config.appUrl) };
  }
}

const requiredTime = (value: unknown): AsOf => {
  const time = parseTime(value, 'at');
  if (time === undefined) throw apiError('invalid_parameter', 'at is required: a date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset.');
  return { time };
};
