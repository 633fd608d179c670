import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ApiModule } from '../../api/src/api.module.js';
import { buildPublicDocument } from '../../api/src/openapi/build-document.js';
import { buildInternalDocument } from '../../simulator/src/openapi/internal-document.js';
import { SimulatorModule } from '../../simulator/src/simulator.module.js';
import { rootModule } from '#runtime/http-apps.js';
import type { Infrastructure } from '#runtime/infrastructure.js';

/**
 * `npm run openapi:write`: docs/openapi.json and docs/internal-openapi.json as the service serves
 * them with the default ALT_BASE_PATH. A preview application resolves the module graph without
 * creating any provider (placeholders stand for the infrastructure), so nothing is started. A test
 * fails while a committed file differs from what the service serves.
 */
const documentText = async (feature: Type<unknown>, build: (app: INestApplication) => Record<string, unknown>): Promise<string> => {
  const placeholders = new Proxy({}, { get: () => ({}) }) as Infrastructure;
  const app = await NestFactory.create(rootModule(placeholders, feature), new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  const document = build(app);
  await app.close();
  return `${JSON.stringify(document, null, 2)}\n`;
};

const write = async (file: string, text: Promise<string>): Promise<void> => {
  writeFileSync(resolve(file), await text);
  process.stdout.write(`wrote ${file}\n`);
};

await write('docs/openapi.json', documentText(ApiModule, (app) => buildPublicDocument(app, '/api')));
await write('docs/internal-openapi.json', documentText(SimulatorModule, buildInternalDocument));
