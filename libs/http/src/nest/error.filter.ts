import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { type DatabaseOutage, DatabaseUnavailableError, isDatabaseConnectionError, isRedisConnectionError } from '#platform';
import type { ErrorCode } from '../errors/error-codes.js';
import { type ErrorResponse, apiError, legacyErrorBody, toErrorResponse } from '../errors/api-error.js';

/** The original endpoint answers in its own shape, and any credential problem with 403. */
export type LegacyMatcher = (request: FastifyRequest) => boolean;

const refusal = (code: ErrorCode, message?: string): ErrorResponse => toErrorResponse(apiError(code, message));

const fromHttpException = (exception: HttpException): ErrorResponse => {
  const status = exception.getStatus();
  if (status === 404) return refusal('not_found');
  if (status === 413) return refusal('payload_too_large');
  return status >= 500 ? refusal('server_error') : refusal('invalid_parameter', exception.message);
};

/** Fastify's own refusals (body too large, malformed request) carry a statusCode and FST_ codes. */
const fromFastifyError = (error: unknown): ErrorResponse | null => {
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode >= 500) return null;
  if (statusCode === 413) return refusal('payload_too_large');
  return statusCode === 404 ? refusal('not_found') : refusal('invalid_json');
};

// While Redis or the database is unreachable, requests that need it are answered at once 500
// server_error (the contract has no 503) with a Retry-After hint; the outage is logged once, elsewhere.
const OUTAGE_RETRY_SECONDS = '5';

/** Redis or the database cannot be reached: not a bug of the request, and not logged per request. */
export const isOutage = (exception: unknown): boolean =>
  exception instanceof DatabaseUnavailableError || isRedisConnectionError(exception) || isDatabaseConnectionError(exception);

export const errorResponseFor = (exception: unknown): ErrorResponse => {
  if (exception instanceof HttpException) return fromHttpException(exception);
  if (isOutage(exception)) return toErrorResponse(apiError('server_error', undefined, { 'Retry-After': OUTAGE_RETRY_SECONDS }));
  const mapped = toErrorResponse(exception);
  if (mapped.status !== 500) return mapped;
  return fromFastifyError(exception) ?? mapped;
};

export const sendError = (
  reply: FastifyReply, request: FastifyRequest, exception: unknown, logger: Logger, isLegacy?: LegacyMatcher, database?: DatabaseOutage,
): void => {
  const response = errorResponseFor(exception);
  // A connection error makes the health watcher probe the database (once, however many requests report).
  if (response.status === 500 && !isOutage(exception)) logger.error({ err: exception, method: request.method, url: request.url, requestId: request.id }, 'request failed');
  else if (response.status === 500) database?.report(exception);
  for (const [name, value] of Object.entries(response.headers)) void reply.header(name, value);
  if (isLegacy?.(request)) {
    const status = response.status === 401 ? 403 : response.status;
    void reply.status(status).send(legacyErrorBody(status, response.body.error.message));
    return;
  }
  void reply.status(response.status).send(response.body);
};

/** Every error leaves in the documented shape; details of a 500 go to the log, never to the client. */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger, private readonly isLegacy?: LegacyMatcher, private readonly database?: DatabaseOutage) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(http.getResponse<FastifyReply>(), http.getRequest<FastifyRequest>(), exception, this.logger, this.isLegacy, this.database);
  }
}
