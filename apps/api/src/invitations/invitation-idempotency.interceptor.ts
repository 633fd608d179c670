import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { IdempotencyInterceptor, type IdempotencyOwner, RedisIdempotencyStore, apiError } from '#http';
import { getAssessment } from '#read-models';
import type { DocumentStore } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';

/** Idempotent invitations: keys belong to the key's workspace; an unknown assessment is 404 before any 409. */
@Injectable()
export class InvitationIdempotency extends IdempotencyInterceptor {
  constructor(store: RedisIdempotencyStore, @Inject(DOCUMENTS) private readonly documents: DocumentStore) {
    super(store);
  }

  protected owner(request: FastifyRequest): IdempotencyOwner {
    const { workspaceId, mode } = (request as AuthenticatedRequest).apiKey;
    return { workspaceId, mode };
  }

  protected async precondition(request: FastifyRequest): Promise<void> {
    const { assessmentId } = request.params as { assessmentId: string };
    if (!(await getAssessment(this.documents, (request as AuthenticatedRequest).apiKey.workspaceId, assessmentId))) throw apiError('not_found');
  }
}
