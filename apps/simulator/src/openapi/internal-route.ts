import { HttpCode, type Type, applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type ErrorCode, schemaParts } from '#http';
import { INTERNAL_EXAMPLES } from './internal-examples.js';

type Schema = Record<string, unknown>;
const { object, text } = schemaParts;

const CAPTURED_ANSWERS: Record<string, unknown> = INTERNAL_EXAMPLES.answers;
const CAPTURED_REQUESTS: Record<string, unknown> = INTERNAL_EXAMPLES.requests;

/** The document's groups of operations, declared with their descriptions in internal-document.ts. */
export type InternalTag = 'Workspaces' | 'Webhooks' | 'Assessments' | 'Candidates' | 'Outbox' | 'Audit' | 'Operations';

export interface InternalAnswer {
  status: number;
  description: string;
  /** The JSON body's schema; none for 204 and for answers that are not JSON. */
  schema?: Schema;
  /** A real answer; by default the one captured under the route's id (internal-examples.json). */
  example?: unknown;
}

export interface InternalRouteSpec {
  /** The operationId: unique, a verb first (`createWorkspace`). */
  id: string;
  tag: InternalTag;
  summary: string;
  description: string;
  /** With one answer, its status is the route's (a POST would answer 201 otherwise). */
  answers: [InternalAnswer, ...InternalAnswer[]];
  /**
   * The refusals of this route, status by status. Those every route can give (400 invalid_parameter,
   * 401, 500; with a request body 400 invalid_json, 413 and 422; with a path id 404) are added by
   * buildInternalDocument.
   */
  refuses?: Partial<Record<number, readonly ErrorCode[]>>;
  /** The body's DTO; its example is the request captured under the route's id. */
  body?: Type<unknown>;
}

/** The error shape with the codes one operation can answer with one status. */
export const errorSchema = (codes: readonly string[]): Schema => object({
  error: object({ code: { type: 'string', enum: [...codes] }, message: text('For people; may change') }),
});

/** One internal route in the document: what it does, what it answers (with a real example) and what it refuses. */
export const InternalRoute = (spec: InternalRouteSpec) =>
  applyDecorators(
    ApiOperation({ operationId: spec.id, summary: spec.summary, description: spec.description }),
    ApiTags(spec.tag),
    ...spec.answers.map((answer) =>
      ApiResponse({
        status: answer.status,
        description: answer.description,
        ...(answer.schema ? { content: { 'application/json': { schema: answer.schema, example: answer.example ?? CAPTURED_ANSWERS[spec.id] } } } : {}),
      })),
    ...Object.entries(spec.refuses ?? {}).map(([status, codes]) =>
      ApiResponse({ status: Number(status), description: (codes ?? []).join(', '), content: { 'application/json': { schema: errorSchema(codes ?? []) } } })),
    ...(spec.answers.length === 1 ? [HttpCode(spec.answers[0].status)] : []),
    ...(spec.body ? [ApiBody({ type: spec.body, examples: { sent: { summary: 'A request the service answered', value: CAPTURED_REQUESTS[spec.id] } } })] : []),
  );
