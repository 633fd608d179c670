import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '#commands';

const headerValue = (request: FastifyRequest, name: string): string | null => {
  const value = request.headers[name];
  return typeof value === 'string' && /^[\x21-\x7e]{1,128}$/.test(value) ? value : null;
};

/** The audit metadata of a request: its id (Fastify's, echoed as X-Request-Id), correlation and actor. */
export const requestContext = (request: FastifyRequest, actor: string): RequestContext => ({
  requestId: request.id,
  correlationId: headerValue(request, 'x-correlation-id') ?? request.id,
  causationId: null,
  actor,
});
