import { Controller, Get, Inject, Query, Req, UseGuards } from '@nestjs/common';
import { CONFIG } from '../../../../libs/commands/src/shared/tokens.js';
import { type CursorCodec, apiError, formatTime, parseEnum, parseLimit, parseOptionalString, parseTime, readCursorParam } from '../../../../libs/http/src/index.js';
import type { ServiceConfig } from '../../../../libs/platform/src/config/config.js';
import { getAssessment, listResults, toResultListView } from '../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../libs/read-models/src/shared/document-store.port.js';
import { CURSORS, DOCUMENTS } from '../../../../libs/runtime/src/infrastructure.js';
import { ApiKeyGuard, type AuthenticatedRequest } from '../auth/api-key.guard.js';

const ORDERS = ['asc', 'desc'] as const;

const optionalTime = (value: unknown, name: string): string | undefined => {
  const date = parseTime(value, name);
  return date ? formatTime(date) : undefined;
};

@Controller('v1/results')
@UseGuards(ApiKeyGuard)
export class ResultsController {
  constructor(
    @Inject(DOCUMENTS) private readonly documents: DocumentStore,
    @Inject(CURSORS) private readonly cursors: CursorCodec,
    @Inject(CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** Oldest first by completedAt for syncing forward; `unlocked_since` sorts by unlock time and has no cursor. */
  @Get()
  async list(@Req() request: AuthenticatedRequest, @Query() query: Record<string, unknown>) {
    const { workspaceId, mode } = request.apiKey;
    const limit = parseLimit(query.limit);
    const since = optionalTime(query.since, 'since');
    const unlockedSince = optionalTime(query.unlocked_since, 'unlocked_since');
    const order = parseEnum(query.order, 'order', ORDERS) ?? 'asc';
    const assessmentId = parseOptionalString(query.assessment, 'assessment');
    const filters = { since: since ?? null, order, assessmentId: assessmentId ?? null, mode };
    const cursor = unlockedSince === undefined ? readCursorParam(this.cursors, 'results', query.cursor, filters) : null;
    if (assessmentId !== undefined && !(await getAssessment(this.documents, workspaceId, assessmentId))) throw apiError('not_found');
    const page = await listResults(this.documents, {
      workspaceId, mode, assessmentId, since, unlockedSince, order, limit, after: cursor ? [String(cursor.t), String(cursor.id)] : undefined,
    });
    const nextCursor = page.next && unlockedSince === undefined
      ? this.cursors.encodeFor('results', { t: String(page.next[0]), id: String(page.next[1]) }, filters)
      : null;
    return { data: page.items.map((doc) => toResultListView(doc, this.config.appUrl)), meta: { nextCursor } };
  }
}
