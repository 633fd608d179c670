import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, type ICommand } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ApiErrorFilter, EdgeValidationPipe, configureFastify, createFastifyAdapter, refuseUnstorableInput, sendError } from '#http';
import { DatabaseUnavailableError } from '#platform';
import { CoreModule } from './core.module.js';
import type { Infrastructure } from './infrastructure.js';
import { observeHttpApp } from './observability/endpoints.js';
import type { Tracing } from './observability/tracing.js';

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The original endpoint (and its twin under ALT_BASE_PATH) answers errors in its own shape. */
export const isLegacyRequest = (request: FastifyRequest): boolean => (request.url.split('?')[0] ?? '') === '/candidates';

/** Health and metrics answer for themselves during an outage (that is what they are for). */
const OPERATIONS_PATH = /^\/(health\/|metrics(\?|$))/;

/**
 * During a declared database outage every request is answered at once, 500 server_error with Retry-After in
 * the endpoint's error shape; those that met it before it was declared get the same from the error filter.
 */
const failFastDuringOutage = (instance: FastifyInstance, infra: Infrastructure, logger: Logger, isLegacy: ((request: FastifyRequest) => boolean) | undefined): void => {
  instance.addHook('onRequest', async (request, reply) => {
    if (infra.database.isUp || OPERATIONS_PATH.test(request.url)) return;
    sendError(reply, request, new DatabaseUnavailableError(), logger, isLegacy);
    return reply;
  });
};

/** A span per request (its route's template, never the URL: a query may hold an address) and per command it runs. */
const traceHttpApp = (instance: FastifyInstance, app: NestFastifyApplication, tracing: Tracing): void => {
  instance.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const end = Date.now();
    tracing.request(request.id, `${request.method} ${route}`, end - reply.elapsedTime, end, {
      'http.request.method': request.method, 'http.route': route, 'http.response.status_code': reply.statusCode,
    });
  });
  const bus = app.get(CommandBus);
  const execute = bus.execute.bind(bus);
  bus.execute = (async (command: ICommand & { context?: { requestId?: string } }) => {
    const start = Date.now();
    let outcome = 'ok';
    try {
      return await execute(command);
    } catch (error) {
      outcome = error instanceof Error ? error.name : 'error';
      throw error;
    } finally {
      const requestId = command.context?.requestId;
      if (requestId) tracing.childOf(requestId, `command ${command.constructor.name}`, start, Date.now(), { 'hiring.command.outcome': outcome });
    }
  }) as typeof bus.execute;
};

export const rootModule = (infra: Infrastructure, feature: Type<unknown>): DynamicModule => {
  @Module({})
  class Root {}
  return { module: Root, imports: [CoreModule.forRoot(infra), feature] };
};

/** One Nest application on Fastify, with the documented error shapes and text bodies parsed by handlers. */
export const startHttpApp = async (
  infra: Infrastructure,
  feature: Type<unknown>,
  options: {
    port: number; altBasePath: string; legacy: boolean; name: string;
    /** Refuse text no store can hold in query strings and bodies (the internal app: unstorable-input.ts). */
    strictText?: boolean;
    /** While the database is known unreachable, answer every request but the orchestrators' at once (see failFastDuringOutage). */
    failFastOnDatabaseOutage?: boolean;
    configure?: (instance: FastifyInstance, app: NestFastifyApplication) => Promise<void> | void;
    /** Runs once the app is initialised, before it listens: reads only, on ids that cannot exist. */
    warmUp?: (app: NestFastifyApplication) => Promise<void>;
  },
): Promise<NestFastifyApplication> => {
  const adapter = createFastifyAdapter(options.altBasePath, infra.config.httpRequestTimeoutMs);
  const app = await NestFactory.create<NestFastifyApplication>(rootModule(infra, feature), adapter, {
    logger: false,
    bodyParser: false,
    abortOnError: false,
  });
  const isLegacy = options.legacy ? isLegacyRequest : undefined;
  const instance = app.getHttpAdapter().getInstance();
  configureFastify(instance);
  observeHttpApp(instance, infra, options.name);
  if (options.strictText) refuseUnstorableInput(instance);
  instance.setGenReqId((raw: IncomingMessage) => {
    const header = raw.headers['x-request-id'];
    return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
  });
  instance.addHook('onSend', async (request, reply) => { void reply.header('X-Request-Id', request.id); });
  if (infra.tracing) traceHttpApp(instance, app, infra.tracing);
  const logger = infra.logger.child({ app: options.name });
  if (options.failFastOnDatabaseOutage) failFastDuringOutage(instance, infra, logger, isLegacy);
  app.useGlobalFilters(new ApiErrorFilter(logger, isLegacy, infra.database));
  app.useGlobalPipes(new EdgeValidationPipe());
  await options.configure?.(instance, app);
  await app.init();
  await options.warmUp?.(app).catch((error: unknown) => logger.warn({ err: error }, 'warm-up failed; the first requests will be slower'));
  await app.listen(options.port, infra.config.host);
  return app;
};
