import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { EventWriter } from '#commands';
import { assessmentStream, evolveAssessment, initialAssessmentState } from '#domain';
import { IdempotencyInterceptor, type IdempotencyOwner, RedisIdempotencyStore, apiError } from '#http';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';

/** Idempotent invitations: keys belong to the key's workspace; an unknown assessment is 404 before any 409. */
@Injectable()
export class InvitationIdempotency extends IdempotencyInterceptor {
  constructor(store: RedisIdempotencyStore, private readonly writer: EventWriter) {
    super(store);
  }

  protected owner(request: FastifyRequest): IdempotencyOwner {
    const { workspaceId, mode } = (request as AuthenticatedRequest).apiKey;
    return { workspaceId, mode };
  }

  /**
   * The assessment as the write side folds it (the state the decision uses next, cached by the
   * writer: on the embedded store no round trip at all), not the read model: the same answer. A
   * peek: an invitation batch in flight changes neither its existence nor its workspace.
   */
  protected async precondition(request: FastifyRequest): Promise<void> {
    const { assessmentId } = request.params as { assessmentId: string };
    // PostgreSQL text cannot hold U+0000: no stream is named with one.
    if (assessmentId.includes('\u0000')) throw apiError('not_found');
    const { state } = await this.writer.peek(assessmentStream(assessmentId), initialAssessmentState, evolveAssessment);
    if (state.status === 'none' || state.workspaceId !== (request as AuthenticatedRequest).apiKey.workspaceId) throw apiError('not_found');
  }
}
