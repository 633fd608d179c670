import type { IncomingMessage } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type LegacyMatcher, sendError } from './error.filter.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Set on the raw request when it came in under ALT_BASE_PATH, so links can be built on that base. */
export const ALT_BASE_MARK = Symbol('altBase');
type MarkedRequest = IncomingMessage & { [ALT_BASE_MARK]?: boolean };

export const cameThroughAltBase = (raw: IncomingMessage): boolean => (raw as MarkedRequest)[ALT_BASE_MARK] === true;

/**
 * Every public path is also served under ALT_BASE_PATH: the prefix is stripped before routing, so
 * both bases run the same routes (and share idempotency keys and rate limits).
 */
export const createFastifyAdapter = (altBasePath: string): FastifyAdapter =>
  new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // Idle keep-alive connections must not hold a graceful shutdown open.
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 1000, caseSensitive: true, ignoreTrailingSlash: false },
    trustProxy: false,
    rewriteUrl: (request: IncomingMessage) => {
      const url = request.url ?? '/';
      if (altBasePath && (url === altBasePath || url.startsWith(`${altBasePath}/`) || url.startsWith(`${altBasePath}?`))) {
        (request as MarkedRequest)[ALT_BASE_MARK] = true;
        return url.slice(altBasePath.length) || '/';
      }
      return url;
    },
  });

/**
 * The body is read as text whatever the Content-Type and parsed by the handlers (the API parses
 * JSON whatever the Content-Type, and refuses a non-object with its own error); Fastify's own
 * refusals still answer in the documented error shape (unknown routes go through Nest's filter).
 */
export const configureFastify = (instance: FastifyInstance, logger: Logger, isLegacy?: LegacyMatcher): void => {
  instance.removeAllContentTypeParsers();
  instance.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));
  instance.setErrorHandler((error, request, reply) => sendError(reply, request, error, logger, isLegacy));
};
