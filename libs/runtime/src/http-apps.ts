import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiErrorFilter, EdgeValidationPipe, configureFastify, createFastifyAdapter, refuseUnstorableInput } from '#http';
import { CoreModule } from './core.module.js';
import type { Infrastructure } from './infrastructure.js';
import { observeHttpApp } from './observability/endpoints.js';

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The original endpoint (and its twin under ALT_BASE_PATH) answers errors in its own shape. */
export const isLegacyRequest = (request: FastifyRequest): boolean => (request.url.split('?')[0] ?? '') === '/candidates';

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
    configure?: (instance: FastifyInstance, app: NestFastifyApplication) => Promise<void> | void;
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
  instance.addHook('onSend', async (request, reply) => {
    void reply.header('X-Request-Id', request.id);
  });
  app.useGlobalFilters(new ApiErrorFilter(infra.logger.child({ app: options.name }), isLegacy));
  app.useGlobalPipes(new EdgeValidationPipe());
  await options.configure?.(instance, app);
  await app.listen(options.port, infra.config.host);
  return app;
};
