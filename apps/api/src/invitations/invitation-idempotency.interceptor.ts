import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { IdempotencyInterceptor, type IdempotencyOwner, RedisIdempotencyStore, apiError } from '#http';
import { type DocumentStore, getAssessment } from '#read-models';
import { DOCUMENTS, ERASURE_WINDOW } from '#runtime/infrastructure.js';
import type { ErasureWindow } from '#runtime/personal-data-erasure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';

/** Assessments whose workspace this process keeps (see InvitationIdempotency.known). */
const KNOWN_ASSESSMENTS = 10_000;

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
    @Inject(ERASURE_WINDOW) private readonly erasures: ErasureWindow,
  ) {
    super(store);
  }

  /** The stored answer holds the invited people's addresses and names: kept unless one of them was deleted meanwhile (ErasureWindow). */
  protected override async keepAnswer(request: FastifyRequest, body: unknown, startedAt: number): Promise<boolean> {
    return this.erasures.mayKeepAnswer((request as AuthenticatedRequest).apiKey.workspaceId, invitedAddresses(body), startedAt);
  }

  protected owner(request: FastifyRequest): IdempotencyOwner {
    const { workspaceId, mode } = (request as AuthenticatedRequest).apiKey;
    return { workspaceId, mode };
  }

  /**
   * The workspace of each assessment seen on the query side. An assessment is never deleted and never
   * changes workspace, so no entry goes stale and no other process's write can invalidate one; one not
   * found is not kept (it may be created next). Bound: KNOWN_ASSESSMENTS, oldest first out.
   */
  private readonly known = new Map<string, string>();

  /** The assessment as the query side shows it: its creation was answered once the read side showed it. */
  protected async precondition(request: FastifyRequest): Promise<void> {
    // (A path id with U+0000 never gets here: fastify-setup's preValidation hook answers it 404.)
    const { workspaceId } = (request as AuthenticatedRequest).apiKey;
    if ((await this.ownerOf(workspaceId, (request.params as { assessmentId: string }).assessmentId)) !== workspaceId) throw apiError('not_found');
  }

  /** The workspace of an assessment the query side shows, then kept (the warm-up asks for those written to last); undefined while it shows none. */
  async ownerOf(workspaceId: string, assessmentId: string): Promise<string | undefined> {
    const known = this.known.get(assessmentId);
    if (known !== undefined) return known;
    const owner = (await getAssessment(this.documents, workspaceId, assessmentId))?.workspaceId;
    if (owner === undefined) return undefined;
    if (this.known.size >= KNOWN_ASSESSMENTS) this.known.delete(this.known.keys().next().value ?? '');
    this.known.set(assessmentId, owner);
    return owner;
  }
}
