import { Controller, Get, Inject, Query, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '../../../../libs/commands/src/shared/tokens.js';
import { ApiError, cameThroughAltBase, parseLimit } from '../../../../libs/http/src/index.js';
import type { ServiceConfig } from '../../../../libs/platform/src/config/config.js';
import { countCandidates, listCandidatesPage, toCandidateView, type CandidateView } from '../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../libs/read-models/src/shared/document-store.port.js';
import { DOCUMENTS } from '../../../../libs/runtime/src/infrastructure.js';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard.js';

/** The original endpoint answers 400 in its own shape (the error filter turns any error into it on this path). */
const badRequest = (message: string): ApiError => new ApiError(400, 'invalid_parameter', message);

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
@UseGuards(ApiKeyGuard)
export class LegacyCandidatesController {
  constructor(@Inject(DOCUMENTS) private readonly documents: DocumentStore, @Inject(CONFIG) private readonly config: ServiceConfig) {}

  @Get()
  async list(@Req() request: AuthenticatedRequest, @Query() query: Record<string, unknown>) {
    const page = this.pageNumber(query.page);
    const perPage = this.whole(query.per_page, 'per_page', 1, 100, 50);
    if (query.sort_by !== undefined && query.sort_by !== 'created_at') throw badRequest('sort_by must be created_at');
    if (query.sort_order !== undefined && query.sort_order !== 'asc' && query.sort_order !== 'desc') throw badRequest('sort_order must be asc or desc');
    const order = query.sort_order === 'asc' ? 'asc' : 'desc';
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

  /**
   * A page number too large to hold exactly is still a whole number past the end: 200 with empty
   * `results` (product decisions), so it is read as the largest exact page rather than refused.
   */
  private pageNumber(value: unknown): number {
    if (typeof value === 'string' && /^[0-9]+$/.test(value) && Number(value) > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
    return this.whole(value, 'page', 1, Number.MAX_SAFE_INTEGER, 1);
  }

  private whole(value: unknown, name: string, min: number, max: number, fallback: number): number {
    try {
      return parseLimit(value, { default: fallback, min, max, name });
    } catch {
      throw badRequest(`${name} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`);
    }
  }

  /** Absolute links on the base the request used (with ALT_BASE_PATH when it came that way). */
  private pageUrl(request: FastifyRequest, page: number, perPage: number, order: string): string {
    const host = request.headers.host ?? `localhost:${this.config.port}`;
    const base = `${request.protocol}://${host}${cameThroughAltBase(request.raw) ? this.config.altBasePath : ''}`;
    return `${base}/candidates?page=${page}&per_page=${perPage}&sort_by=created_at&sort_order=${order}`;
  }
}
