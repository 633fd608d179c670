import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '#commands';
import { type ReceivedBody, hasBody, parseJsonObjectBody } from '#http';

export const internalContext = (request: FastifyRequest): RequestContext => ({
  requestId: request.id,
  correlationId: typeof request.headers['x-correlation-id'] === 'string' ? request.headers['x-correlation-id'].slice(0, 128) : request.id,
  causationId: null,
  actor: 'internal',
});

/** Routes without a meaningful body accept an empty one. */
export const optionalBody = (request: FastifyRequest): Record<string, unknown> => {
  const raw = request.body;
  return hasBody(raw) ? parseJsonObjectBody(raw) : {};
};

export const requiredBody = (request: FastifyRequest): Record<string, unknown> => parseJsonObjectBody(request.body as ReceivedBody);
