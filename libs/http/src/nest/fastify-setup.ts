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
 * Lingering close (as nginx's): the rest of the body is read and dropped, then our side is ended; a
 * reset at once would meet a client still sending the body.
 */
const lingerAfterRefusedBody = (request: IncomingMessage): void => {
  const socket = request.socket as Socket & { destroySoon?: () => void };
  if (request.complete || socket.destroyed) return;
  // Ended only once the body is in: a client still sending would stop at our FIN (Node's sockets do).
  socket.destroySoon = () => (request.complete ? socket.end() : request.once('end', () => socket.end()));
  const timer = setTimeout(() => socket.destroy(), LINGER_AFTER_REFUSED_BODY_MS);
  timer.unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  request.resume();
};

/**
 * Longest id a request may name (the document's `maxLength`): longer is 404 in a path, 400
 * invalid_parameter in a query. Ids the service makes are about 20 characters.
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

/** The request each socket dispatched last (its headers in), set by configureFastify. */
const lastRequest = new WeakMap<Socket, IncomingMessage>();

/**
 * Node checks the time limits on a timer, and after a long turn of the event loop (a busy or paused
 * process) timers run before sockets are read: a request that had arrived whole would be refused
 * 408. So a timeout waits for this turn's reads: the socket is spared if its request's headers, or the
 * body it was waiting for, came in with them (Node then times the next message afresh).
 */
const unlessItArrived = (socket: Socket, refuse: () => void): void => {
  const before = lastRequest.get(socket);
  const bodyPending = before !== undefined && !before.complete;
  setImmediate(() => {
    const now = lastRequest.get(socket);
    if (socket.destroyed || now !== before || (bodyPending && now?.complete === true)) return;
    refuse();
  });
};

/**
 * Against slow clients (slowloris): a whole request within `requestTimeoutMs` (headers within 10 s at
 * most), idle keep-alive closed after 5 s, checked every second (Node's 30 s default would let a slow
 * client hold a socket half a minute past its limit). A request cut short is answered 408 if it can be.
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
    // A path parameter the router refuses (bad percent-encoding, over maxParamLength) names no id
    // that exists: answered as an unknown id, in our shape rather than Fastify's.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const unknownId = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      // Answered before the route's hooks: the request id every answer carries is set here.
      void reply
        .header('X-Request-Id', request.id)
        .status(unknownId ? 404 : 500)
        .send(unknownId ? errorBody('not_found', ERROR_MESSAGES.not_found) : errorBody('server_error', ERROR_MESSAGES.server_error));
    },
    // Requests Node's HTTP parser refuses never reach a route: answered in the documented shape with a
    // new X-Request-Id (the headers were not read), never the original endpoint's (nor was the path).
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      const code = clientErrorCode(error.code);
      const status = ERROR_STATUS[code];
      const text = JSON.stringify(errorBody(code, ERROR_MESSAGES[code]));
      const refuse = () => socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
        + `Content-Length: ${Buffer.byteLength(text)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${text}`);
      if (code === 'request_timeout') unlessItArrived(socket, refuse);
      else refuse();
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

/** The body is read as text whatever the Content-Type; the handlers parse it (RequiredJsonBody). */
export const configureFastify = (instance: FastifyInstance): void => {
  instance.server.on('request', (request: IncomingMessage) => lastRequest.set(request.socket, request));
  instance.removeAllContentTypeParsers();
  // Decoded strictly, never with U+FFFD: bytes that are not UTF-8 are handed on as a Buffer, for the
  // handler to refuse as 400 invalid_json after the credential is checked (docs/api.md).
  instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    try {
      done(null, strictUtf8.decode(body as Buffer));
    } catch {
      done(null, body);
    }
  });
  // No id contains U+0000 (no store can hold one): such a path parameter is an unknown id, kept from the stores.
  instance.addHook('preValidation', async (request) => {
    const params = request.params as Record<string, unknown> | null | undefined;
    if (params && Object.values(params).some((value) => typeof value === 'string' && value.includes('\u0000'))) throw apiError('not_found');
  });
  // Fastify answers a body over the limit 413 from its Content-Length and closes the connection: at once,
  // that reset a client still sending (fetch: EPIPE, seen in CI), so it is closed lingering.
  instance.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 413) lingerAfterRefusedBody(request.raw);
    return payload;
  });
  // A query string beyond the limits (query-limits.ts) is refused before any route, guard or pipe reads it.
  instance.addHook('onRequest', async (request) => {
    const excess = queryExcess(request.url);
    if (excess !== null) throw apiError('invalid_parameter', `Beyond the limits on one query string: ${excess}.`);
  });
};
