import { Controller, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { type InvitationResult, InviteCandidates } from '../../../../libs/commands/src/index.js';
import { invitationUrl } from '../../../../libs/domain/src/index.js';
import { CONFIG, REDIS } from '../../../../libs/commands/src/shared/tokens.js';
import { RedisIdempotencyStore, apiError, fingerprint, parseJsonObjectBody, validateIdempotencyKey } from '../../../../libs/http/src/index.js';
import type { ServiceConfig } from '../../../../libs/platform/src/config/config.js';
import { getAssessment } from '../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../libs/read-models/src/shared/document-store.port.js';
import { DOCUMENTS } from '../../../../libs/runtime/src/infrastructure.js';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard.js';
import { requestContext } from '../auth/request-context.js';


const toResponse = (result: InvitationResult, appUrl: string) => {
  const data = result.outcomes.map(({ invitationToken, ...entry }) => ({
    ...entry,
    invitationUrl: invitationToken ? invitationUrl(appUrl, result.assessmentId, invitationToken) : null,
  }));
  const count = (status: string) => data.filter((entry) => entry.status === status).length;
  return { data, meta: { assessmentId: result.assessmentId, invited: count('invited'), alreadyInvited: count('already_invited'), failed: count('failed') } };
};

@Controller('v1/assessments/:assessmentId/invitations')
@UseGuards(ApiKeyGuard)
export class InvitationsController {
  private readonly idempotency: RedisIdempotencyStore;

  constructor(
    private readonly commands: CommandBus,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CONFIG) private readonly config: ServiceConfig,
    @Inject(REDIS) redis: ConstructorParameters<typeof RedisIdempotencyStore>[0],
  ) {
    this.idempotency = new RedisIdempotencyStore(redis, { prefix: 'idem:' });
  }

  /** Refusals in the documented order: 400, 404, 409 (idempotency), then the decision's own. */
  @Post()
  @HttpCode(200)
  async invite(@Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('assessmentId') assessmentId: string) {
    const body = parseJsonObjectBody(request.body as string | undefined);
    const key = validateIdempotencyKey(request.headers['idempotency-key']);
    if (!key.ok) throw apiError('invalid_idempotency_key');
    const { workspaceId, mode, apiKeyId } = request.apiKey;
    if (!(await getAssessment(this.documents, workspaceId, assessmentId))) throw apiError('not_found');

    const run = async () => toResponse(await this.commands.execute(new InviteCandidates(workspaceId, assessmentId, mode, body.candidates, requestContext(request, apiKeyId))), this.config.appUrl);
    if (key.key === null) return run();

    const scope = { workspaceId, key: key.key };
    const idempotent = { mode, fingerprint: fingerprint(request.url.split('?')[0] ?? '', body) };
    const begun = await this.idempotency.begin(scope, idempotent);
    if (begun.kind === 'replay') {
      void reply.header('Idempotent-Replayed', 'true');
      return begun.response.body;
    }
    if (begun.kind === 'reused') throw apiError('idempotency_key_reused');
    if (begun.kind === 'in_progress') throw apiError('idempotency_request_in_progress', undefined, { 'Retry-After': String(begun.retryAfterSeconds) });
    try {
      const response = await run();
      await this.idempotency.complete(scope, idempotent, { status: 200, body: response });
      return response;
    } catch (error) {
      // A refused request leaves the key unused.
      await this.idempotency.abandon(scope, idempotent).catch(() => undefined);
      throw error;
    }
  }
}
