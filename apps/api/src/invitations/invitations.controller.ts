import { Body, Controller, HttpCode, Inject, Param, Post, Req, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { CommandBus } from '@nestjs/cqrs';
import { type InvitationResult, InviteCandidates, CONFIG } from '#commands';
import { invitationUrl } from '#domain';
import { RequiredJsonBody } from '#http';
import type { ServiceConfig } from '#platform';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { requestContext } from '../auth/request-context.js';
import { Answers, Authenticated, Operation, Refuses } from '../openapi/operation.decorators.js';
import { list } from '../openapi/response-schemas.js';
import { InvitationIdempotency } from './invitation-idempotency.interceptor.js';
import { InviteCandidatesBody } from './invitations.dto.js';

const toResponse = (result: InvitationResult, appUrl: string) => {
  const data = result.outcomes.map(({ invitationToken, ...entry }) => ({
    ...entry,
    invitationUrl: invitationToken ? invitationUrl(appUrl, result.assessmentId, invitationToken) : null,
  }));
  const count = (status: string) => data.filter((entry) => entry.status === status).length;
  return { data, meta: { assessmentId: result.assessmentId, invited: count('invited'), alreadyInvited: count('already_invited'), failed: count('failed') } };
};

/**
 * Refusals in the documented order: 400 invalid_json (RequiredJsonBody), 400 invalid_idempotency_key,
 * 404 and 409 (InvitationIdempotency), 422 of the envelope (the DTO), then the decision's own.
 */
@Controller('v1/assessments/:assessmentId/invitations')
@Authenticated('Invitations')
export class InvitationsController {
  constructor(private readonly commands: CommandBus, @Inject(CONFIG) private readonly config: ServiceConfig) {}

  @Post()
  @HttpCode(200)
  @UseInterceptors(RequiredJsonBody, InvitationIdempotency)
  @Operation('inviteCandidates', 'Invite candidates', 'One entry per person sent, in the order sent; each is judged on its own, so one bad entry does not stop the others.')
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '1 to 255 printable ASCII characters without spaces; makes retries safe for 24 hours', schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]{1,255}$' } })
  @Answers(200, 'One entry per person, and the counts by status', list('InvitationEntry', 'InvitationMeta'), 'invitations', ['Idempotent-Replayed'])
  @Refuses({
    400: ['invalid_json', 'invalid_idempotency_key'],
    403: ['workspace_unverified'],
    404: ['not_found'],
    409: ['idempotency_key_reused', 'idempotency_request_in_progress'],
    422: ['validation_failed', 'too_many_candidates', 'assessment_closed', 'sandbox_limit'],
  }, { 409: { 'Retry-After': { description: 'With idempotency_request_in_progress: whole seconds, at least 1, before the first request is expected to be done', schema: { type: 'integer', minimum: 1 } } } })
  async invite(@Req() request: AuthenticatedRequest, @Param('assessmentId') assessmentId: string, @Body() body: InviteCandidatesBody) {
    const { workspaceId, mode, apiKeyId } = request.apiKey;
    const result = await this.commands.execute(new InviteCandidates(workspaceId, assessmentId, mode, body.candidates, requestContext(request, apiKeyId)));
    return toResponse(result, this.config.appUrl);
  }
}
