import { ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_ID_LENGTH, OneOfParam, TextParam, TimeParam, WholeNumberParam } from '#http';
import { ORDERS, type Order } from '../results/results.dto.js';

/** No cursor: integrators poll with `since` or `updated_since` and `order=asc`, keeping the last time seen. */
export class ListCompletionsQuery {
  @WholeNumberParam({ min: 1, max: 100, default: 50, description: 'Maximum rows' })
  limit: number = 50;

  @TimeParam('Only assessments finished at or after this time (inclusive)')
  since?: string;

  // The example is the completedAt the example answer was asked with (apps/api/src/openapi/examples.ts, API 1.2.0).
  @ApiPropertyOptional({ example: '2026-11-28T22:39:16.983Z' })
  @TimeParam('Only completions whose `updatedAt` (the later of `completedAt` and the latest unlock of its results) is at or after this time (inclusive); the list is then sorted by `updatedAt`. Combines with `since`, `assessment` and `limit`')
  updated_since?: string;

  @OneOfParam(ORDERS, 'Sort order by completedAt (by updatedAt with `updated_since`)', 'desc')
  order: Order = 'desc';

  @TextParam('Only this assessment id; an unknown id is 404 not_found', { maxLength: MAX_ID_LENGTH, longer: 'unknown id' })
  assessment?: string;
}
