import { UseGuards, applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { ErrorCode } from '#http';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { RateLimitGuard } from '../auth/rate-limit.guard.js';
import { EXAMPLES } from './examples.js';
import { errorSchema } from './response-schemas.js';

export const BEARER_SCHEME = 'keySecretBearer';
export const BASIC_SCHEME = 'keySecretBasic';

/** Authentication, then the rate limit (a failed authentication uses no place), and both credential forms. */
export const Authenticated = (tag: string) =>
  applyDecorators(UseGuards(ApiKeyGuard, RateLimitGuard), ApiSecurity(BEARER_SCHEME), ApiSecurity(BASIC_SCHEME), ApiTags(tag));

export const Operation = (operationId: string, summary: string, description?: string, extra: { deprecated?: boolean } = {}) =>
  ApiOperation({ operationId, summary, ...(description ? { description } : {}), ...extra });

/** The success answer: its schema, the real answer captured under `example` in examples.json, and its own headers. */
export const Answers = (status: number, description: string, schema: Record<string, unknown>, example: string, headers: string[] = []) =>
  ApiResponse({
    status,
    description,
    content: { 'application/json': { schema, example: EXAMPLES[example] } },
    ...(headers.length ? { headers: Object.fromEntries(headers.map((name) => [name, { $ref: `#/components/headers/${name}` }])) } : {}),
  });

/** The error answers of one operation, status by status, with the codes each status can carry. */
export const Refuses = (refusals: Partial<Record<number, readonly ErrorCode[]>>, headers: Partial<Record<number, Record<string, object>>> = {}) =>
  applyDecorators(
    ...Object.entries(refusals).map(([status, codes]) =>
      ApiResponse({
        status: Number(status),
        description: (codes ?? []).join(', '),
        content: { 'application/json': { schema: errorSchema(codes ?? []) } },
        ...(headers[Number(status)] ? { headers: headers[Number(status)] } : {}),
      }),
    ),
  );
