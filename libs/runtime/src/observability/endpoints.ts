import Fastify, { type FastifyInstance } from 'fastify';
import { ERROR_MESSAGES, bearerMatcher, errorBody } from '#http';
import type { Infrastructure } from '../infrastructure.js';
import { observabilityOf } from './process-observability.js';

const OK = { status: 'ok' } as const;
const UNAVAILABLE = { status: 'unavailable' } as const;

/**
 * Instruments the routes registered on `instance` from now on, and mounts the process's endpoints there:
 * `GET /health/live`, `GET /health/ready` (no credentials, `{ status }` only, 200 or 503) and `GET /metrics`
 * (bearer INTERNAL_TOKEN, Prometheus text). Plain Fastify routes: Nest's guards (the API key, the rate limit,
 * the internal token) never see them.
 */
export const observeHttpApp = (instance: FastifyInstance, infra: Infrastructure, app: string): void => {
  const observability = observabilityOf(infra);
  observability.requests.instrument(instance, app);
  const authorized = bearerMatcher(infra.config.internalToken);
  instance.get('/health/live', (_request, reply) => {
    void reply.header('Cache-Control', 'no-store').send(OK);
  });
  instance.get('/health/ready', async (_request, reply) => {
    const { ready } = await observability.readiness.check();
    return reply.status(ready ? 200 : 503).header('Cache-Control', 'no-store').send(ready ? OK : UNAVAILABLE);
  });
  instance.get('/metrics', async (request, reply) => {
    if (!authorized(request.headers.authorization)) return reply.status(401).send(errorBody('unauthorized', ERROR_MESSAGES.unauthorized));
    const text = await observability.scrape();
    return reply.header('Content-Type', observability.contentType).header('Cache-Control', 'no-store').send(text);
  });
};

/** A process without an HTTP application (the worker) serves the endpoints alone on PORT. */
export const startProcessEndpoints = async (infra: Infrastructure): Promise<{ close(): Promise<void> }> => {
  const instance = Fastify({ forceCloseConnections: 'idle', keepAliveTimeout: 5_000, requestTimeout: 10_000 });
  instance.setNotFoundHandler((_request, reply) => {
    void reply.status(404).send(errorBody('not_found', ERROR_MESSAGES.not_found));
  });
  instance.setErrorHandler((error, _request, reply) => {
    infra.logger.error({ err: error }, 'health or metrics request failed');
    void reply.status(500).send(errorBody('server_error', ERROR_MESSAGES.server_error));
  });
  observeHttpApp(instance, infra, 'worker');
  await instance.listen({ port: infra.config.port, host: infra.config.host });
  infra.logger.info({ port: infra.config.port }, 'health and metrics listening');
  return { close: () => instance.close() };
};
