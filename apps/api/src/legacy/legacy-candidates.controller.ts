import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '#commands';
import { OneOfParam, WholeNumberParam, cameThroughAltBase } from '#http';
import type { ServiceConfig } from '#platform';
import { countCandidates, listCandidatesPage, toCandidateView, type CandidateView, type DocumentStore } from '#read-models';
import { DOCUMENTS } from '#runtime/infrastructure.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { EXAMPLES } from '../openapi/examples.js';
import { Authenticated, Operation } from '../openapi/operation.decorators.js';
import { LinkBase } from './link-base.js';

const SORT_ORDERS = ['asc', 'desc'] as const;

/** A page number too large to hold exactly is past the end (200, empty `results`): read as the largest exact one. */
const clampHugePage = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^[0-9]+$/.test(value) && Number(value) > Number.MAX_SAFE_INTEGER ? String(Number.MAX_SAFE_INTEGER) : value;

/** The original endpoint answers 400 in its own shape (the error filter turns any error into it on this path). */
export class LegacyCandidatesQuery {
  // Below the rule: decorators apply bottom-up, so the clamp runs before the whole-number transform.
  @WholeNumberParam({
    min: 1, max: Number.MAX_SAFE_INTEGER, default: 1, maximumDocumented: false,
    description: 'Page number, any whole number from 1; a page past the end, however large, is 200 with empty `results`',
  })
  @Transform(clampHugePage)
  page: number = 1;

  @WholeNumberParam({ min: 1, max: 100, default: 50, description: 'Rows per page' })
  per_page: number = 50;

  @OneOfParam(['created_at'] as const, 'Only `created_at`', 'created_at')
  sort_by?: 'created_at';

  @OneOfParam(SORT_ORDERS, 'Sort order', 'desc')
  sort_order: (typeof SORT_ORDERS)[number] = 'desc';
}

const legacyAnswer = (status: number, description: string) =>
  ApiResponse({ status, description, content: { 'application/json': { schema: { $ref: '#/components/schemas/LegacyError' } } } });

const legacyCandidate = (view: CandidateView) => ({
  id: view.id,
  email: view.email,
  first_name: view.firstName,
  last_name: view.surname,
  created_at: view.createdAt,
  updated_at: view.updatedAt,
  report_url: view.reportUrl,
  assessments: view.assessments.map((entry) => ({
    id: entry.id,
    name: entry.name,
    status: entry.status,
    completed_at: entry.completedAt,
    results: entry.results.map((result) => ({
      id: result.id,
      test_slug: result.testSlug,
      test_name: result.testName,
      completed_at: result.completedAt,
      unlocked: result.unlocked,
      score_percentage: result.scorePercentage,
    })),
  })),
});

/** Kept unchanged for existing integrations (API 9.4): page numbers, snake_case, `{ status, code }` errors. */
@Controller('candidates')
@Authenticated('Original endpoint')
export class LegacyCandidatesController {
  private readonly linkBase: LinkBase;

  constructor(@Inject(DOCUMENTS) private readonly documents: DocumentStore, @Inject(CONFIG) private readonly config: ServiceConfig) {
    this.linkBase = new LinkBase(config.apiUrls);
  }

  @Get()
  @Operation('listCandidatesOriginal', 'Original candidates endpoint',
    'Kept unchanged for existing integrations; new integrations use `GET /v1/candidates`. Page numbers, snake_case fields, errors as `{ status, code }`, and any credential problem is 403.',
    { deprecated: true })
  @ApiResponse({ status: 200, description: 'One page of candidates', content: { 'application/json': { schema: { $ref: '#/components/schemas/LegacyCandidatePage' }, example: EXAMPLES.legacyCandidates } } })
  @legacyAnswer(400, 'page, per_page, sort_by or sort_order not valid')
  @legacyAnswer(403, 'Credential missing, malformed or wrong')
  async list(@Req() request: AuthenticatedRequest, @Query() query: LegacyCandidatesQuery) {
    const { page, per_page: perPage, sort_order: order } = query;
    const { workspaceId, mode } = request.apiKey;
    const [count, docs] = await Promise.all([
      countCandidates(this.documents, { workspaceId, mode }),
      listCandidatesPage(this.documents, { workspaceId, mode, offset: (page - 1) * perPage, limit: perPage, order }),
    ]);
    const link = (target: number) => this.pageUrl(request, target, perPage, order);
    return {
      count,
      next: page * perPage < count ? link(page + 1) : null,
      previous: page > 1 ? link(Math.min(page - 1, Math.max(1, Math.ceil(count / perPage)))) : null,
      results: docs.map((doc) => legacyCandidate(toCandidateView(doc, this.config.appUrl))),
    };
  }

  /** Absolute links on the configured address the request used (link-base.ts), with ALT_BASE_PATH when it came that way. */
  private pageUrl(request: FastifyRequest, page: number, perPage: number, order: string): string {
    const base = `${this.linkBase.for(request.headers.host)}${cameThroughAltBase(request.raw) ? this.config.altBasePath : ''}`;
    return `${base}/candidates?page=${page}&per_page=${perPage}&sort_by=created_at&sort_order=${order}`;
  }
}
