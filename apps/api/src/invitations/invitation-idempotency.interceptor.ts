import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { IdempotencyInterceptor, type IdempotencyOwner, RedisIdempotencyStore, apiError } from '#http';
import { type DocumentStore, getAssessment } from '#read-models';
import { DOCUMENTS, INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';

/** The database's clock and this process's may differ a little: a retirement this much before the request counts too. */
const CLOCK_MARGIN_MS = 1_000;

const invitedAddresses = (body: unknown): string[] => {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  return data.flatMap((entry: unknown) => (typeof (entry as { email?: unknown }).email === 'string' ? [(entry as { email: string }).email] : []));
};

/** Idempotent invitations: keys belong to the key's workspace; an unknown assessment is 404 before any 409. */
@Injectable()
export class InvitationIdempotency extends IdempotencyInterceptor {
  constructor(
    store: RedisIdempotencyStore,
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
  ) {
    super(store);
  }

  /**
   * The stored answer holds the invited people's addresses and names. A test candidate among them
   * deleted while this request ran may have been erased before the answer was stored (the erasure
   * scrubs Redis once): then it goes again. Their deletion retired their key in its own transaction,
   * before the erasure ran, so a retirement since the request began is seen here whenever the
   * erasure's scrub came before this answer was stored. (An address deleted and invited again within
   * this request also counts: its record goes, and a replay runs the request again.)
   */
  protected override async keepAnswer(request: FastifyRequest, body: unknown, startedAt: number): Promise<boolean> {
    const emails = invitedAddresses(body);
    if (emails.length === 0) return true;
    const { workspaceId } = (request as AuthenticatedRequest).apiKey;
    return !(await this.infra.audit.personKeys.retiredSince(workspaceId, emails, startedAt - CLOCK_MARGIN_MS));
  }

  protected owner(request: FastifyRequest): IdempotencyOwner {
    const { workspaceId, mode } = (request as AuthenticatedRequest).apiKey;
    return { workspaceId, mode };
  }

  /** The assessment as the query side shows it: its creation was answered once the read side showed it, and it never changes workspace. */
  protected async precondition(request: FastifyRequest): Promise<void> {
    const { assessmentId } = request.params as { assessmentId: string };
    // PostgreSQL text cannot hold U+0000: no stream is named with one.
    if (assessmentId.includes('\u0000')) throw apiError('not_found');
    if ((await getAssessment(this.documents, (request as AuthenticatedRequest).apiKey.workspaceId, assessmentId)) === null) throw apiError('not_found');
  }
}
