import { randomUUID } from 'node:crypto';
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError, errorBody } from '../errors/api-error.js';
import { ERROR_MESSAGES, ERROR_STATUS, type ErrorCode } from '../errors/error-codes.js';
import { queryExcess } from '../query/query-limits.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** After a 413, the connection stays open to read (and drop) the rest of the refused body this long at most. */
const LINGER_AFTER_REFUSED_BODY_MS = 10_000;

/**
 * Lingering close (as nginx's): the answer is sent, the rest of the body is read and dropped, and our
 * side of the connection is ended once it is in (or destroyed when the bound passes), instead of the
 * connection being destroyed at once: a reset there would meet a client still sending the body.
 */
const lingerAfterRefusedBody = (request: IncomingMessage): void => {
  const socket = request.socket as Socket & { destroySoon?: () => void };
  if (request.complete || socket.destroyed) return;
  // Our side is ended only once the whole body is in: a client sees the end (FIN) as the connection
  // closing, and one that has not finished sending stops there too (Node's sockets do).
  socket.destroySoon = () => (request.complete ? socket.end() : request.once('end', () => socket.end()));
  const timer = setTimeout(() => socket.destroy(), LINGER_AFTER_REFUSED_BODY_MS);
  timer.unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  request.resume();
};

/**
 * Longest id a request may name: a path parameter as sent (longer: 404, the router holds none) or an
 * id given in a query parameter (longer: 400 invalid_parameter). Ids the service makes are about 20
 * characters; the bound is the document's `maxLength`, generous for ids yet to come.
 */
export const MAX_ID_LENGTH = 1000;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Set on the raw request when it came in under ALT_BASE_PATH, so links can be built on that base. */
export const ALT_BASE_MARK = Symbol('altBase');
type MarkedRequest = IncomingMessage & { [ALT_BASE_MARK]?: boolean };

export const cameThroughAltBase = (raw: IncomingMessage): boolean => (raw as MarkedRequest)[ALT_BASE_MARK] === true;

const clientErrorCode = (code: string | undefined): ErrorCode => {
  if (code === 'HPE_HEADER_OVERFLOW') return 'request_too_large';
  return code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT' ? 'request_timeout' : 'bad_request';
};

/**
 * Time limits against slow clients (slowloris): a request must arrive whole, headers and body, within
 * `requestTimeoutMs` (headers alone within 10 s at most), and an idle keep-alive connection is closed
 * after 5 s. Node checks them once a second (its default is every 30 s, which would let a slow client
 * hold a socket half a minute past its limit). A request cut short is answered 408 when the socket
 * can still take it.
 */
export const httpTimeouts = (requestTimeoutMs: number) => {
  const headersTimeout = Math.min(10_000, requestTimeoutMs);
  return {
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: Math.min(5_000, requestTimeoutMs),
    connectionTimeout: requestTimeoutMs + 5_000,
    http: { headersTimeout, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: 1_000 },
  };
};

/**
 * Every public path is also served under ALT_BASE_PATH: the prefix is stripped before routing, so
 * both bases run the same routes (and share idempotency keys and rate limits).
 */
export const createFastifyAdapter = (altBasePath: string, requestTimeoutMs = 30_000): FastifyAdapter =>
  new FastifyAdapter({
    ...httpTimeouts(requestTimeoutMs),
    bodyLimit: BODY_LIMIT_BYTES,
    // Idle keep-alive connections must not hold a graceful shutdown open.
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: MAX_ID_LENGTH, caseSensitive: true, ignoreTrailingSlash: false },
    trustProxy: false,
    // Refusals the router makes before any route runs: a path parameter that is not valid
    // percent-encoding, or longer than maxParamLength, names no id that exists. They are answered
    // like an unknown id, in the documented error shape (Fastify answers its own shape otherwise).
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const unknownId = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      // Answered before the route's hooks: the request id every answer carries is set here.
      void reply
        .header('X-Request-Id', request.id)
        .status(unknownId ? 404 : 500)
        .send(unknownId ? errorBody('not_found', ERROR_MESSAGES.not_found) : errorBody('server_error', ERROR_MESSAGES.server_error));
    },
    // Requests Node's HTTP parser refuses (bad bytes in a header, a request line or headers over the
    // limit) never reach a route: they are still answered in the documented error shape, with the
    // X-Request-Id every answer carries. The headers were not read, so the id is always a new one;
    // and the path was not either, so the original endpoint's own error shape cannot be chosen.
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      const code = clientErrorCode(error.code);
      const status = ERROR_STATUS[code];
      const text = JSON.stringify(errorBody(code, ERROR_MESSAGES[code]));
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n`
        + `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${text}`);
    },
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
export const configureFastify = (instance: FastifyInstance): void => {
  instance.removeAllContentTypeParsers();
  // Decoded strictly: bytes that are not UTF-8 are not JSON text, and must not be replaced with
  // U+FFFD and accepted as if the client had sent those characters. Such a body is handed on as the
  // bytes (a Buffer, never a string), for the handler to refuse as 400 invalid_json: after the
  // credential is checked, like every other body that is not a JSON object (docs/api.md).
  instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    try {
      done(null, strictUtf8.decode(body as Buffer));
    } catch {
      done(null, body);
    }
  });
  // Fastify's own errors (body too large, …) reach Nest's error handler, which hands them to ApiErrorFilter.
  // No id contains U+0000 (nor can the stores hold one): such a path parameter names nothing that
  // exists, and is answered like an unknown id instead of reaching a store that would fail on it.
  instance.addHook('preValidation', async (request) => {
    const params = request.params as Record<string, unknown> | null | undefined;
    if (params && Object.values(params).some((value) => typeof value === 'string' && value.includes('\u0000'))) throw apiError('not_found');
  });
  // A body over the limit is refused from its Content-Length before it is read, and the connection
  // closed with the 413 (Fastify: the client may send more): destroyed at once, it met a client still
  // sending the body with a reset instead of the answer (fetch: EPIPE, seen in CI). Closed lingering.
  instance.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 413) lingerAfterRefusedBody(request.raw);
    return payload;
  });
  // A query string beyond the limits on one request's work (query-limits.ts) is refused before any
  // route, guard or pipe reads it: one pass over its characters, whatever the route.
  instance.addHook('onRequest', async (request) => {
    const excess = queryExcess(request.url);
    if (excess !== null) throw apiError('invalid_parameter', `Beyond the limits on one query string: ${excess}.`);
  });
};
