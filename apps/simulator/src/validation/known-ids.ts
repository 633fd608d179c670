import {
  type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor, SetMetadata, UseInterceptors, applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { notFound, parseLink } from '#domain';
import { OptionalJsonBody, RequiredJsonBody } from '#http';
import { type AssessmentDocument, type CandidateDocument, type DocumentStore, assessmentsProjection, candidatesProjection, getWorkspace } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';

/*
 * The commands refuse an unknown id (404) before they judge a body; the DTOs judge bodies before a
 * command runs. These lookups, on the query side, keep the order clients have always been answered
 * in: an unknown id before a bad body. They answer what the command would (same code and message);
 * the command still decides on its own streams.
 */

export const requireKnownWorkspace = async (documents: DocumentStore, workspaceId: string): Promise<void> => {
  if (!(await getWorkspace(documents, workspaceId))) throw notFound('workspace');
};

export const requireKnownAssessment = async (documents: DocumentStore, assessmentId: string): Promise<AssessmentDocument> => {
  const assessment = await documents.get<AssessmentDocument>(assessmentsProjection.name, assessmentId);
  if (!assessment) throw notFound('assessment');
  return assessment;
};

/** As CompleteTest: the candidate, then the assessment in the candidate's workspace. */
export const requireKnownCandidateAndAssessment = async (documents: DocumentStore, candidateId: string, assessmentId: string): Promise<void> => {
  const candidate = await documents.get<CandidateDocument>(candidatesProjection.name, candidateId);
  if (!candidate) throw notFound('candidate');
  const assessment = await documents.get<AssessmentDocument>(assessmentsProjection.name, assessmentId);
  if (!assessment || assessment.workspaceId !== candidate.workspaceId) throw notFound('assessment');
};

/** As RegisterCandidate on a sign-up: a link the service issued, of a known assessment, with its token. */
export const requireKnownSignUpLink = async (documents: DocumentStore, inviteUrl: string, appUrl: string): Promise<void> => {
  const link = parseLink(inviteUrl, 'invite', appUrl);
  if (!link) throw notFound('invite link');
  const assessment = await requireKnownAssessment(documents, link.assessmentId);
  if (assessment.inviteToken !== link.token) throw notFound('invite link');
};

export type KnownPath = 'workspace' | 'assessment' | 'candidate and assessment';

const KNOWN_PATH = 'simulator:known-path';

/** Looks the route's path ids up (KnownPath), after the body is parsed and before its DTO. */
@Injectable()
export class KnownPathIds implements NestInterceptor {
  constructor(private readonly reflector: Reflector, @Inject(DOCUMENTS) private readonly documents: DocumentStore) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const known = this.reflector.get<KnownPath | undefined>(KNOWN_PATH, context.getHandler());
    const params = context.switchToHttp().getRequest<FastifyRequest<{ Params: Record<string, string> }>>().params;
    if (known === 'workspace') await requireKnownWorkspace(this.documents, params.workspaceId ?? '');
    if (known === 'assessment') await requireKnownAssessment(this.documents, params.assessmentId ?? '');
    if (known === 'candidate and assessment') await requireKnownCandidateAndAssessment(this.documents, params.candidateId ?? '', params.assessmentId ?? '');
    return next.handle();
  }
}

/**
 * A JSON body on a route under known ids, refused in the order the commands answered: 400
 * invalid_json (the body is parsed first), then 404 for an unknown id, then the DTO's 422.
 */
export const JsonBodyUnder = (known: KnownPath, options: { optional?: boolean } = {}) =>
  applyDecorators(SetMetadata(KNOWN_PATH, known), UseInterceptors(options.optional ? OptionalJsonBody : RequiredJsonBody, KnownPathIds));
