import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { rootModule } from '../../../../libs/runtime/src/http-apps.js';
import type { Infrastructure } from '../../../../libs/runtime/src/infrastructure.js';
import { ApiModule } from '../api.module.js';
import { buildPublicDocument } from './build-document.js';

/**
 * `npm run openapi:write`: docs/openapi.json as the service serves it with the default
 * ALT_BASE_PATH. A preview application scans the module graph without creating any provider, so
 * nothing is started. A test fails while the committed file differs from what the service serves.
 */
export const publicDocumentText = async (altBasePath = '/api'): Promise<string> => {
  // Preview mode resolves the graph but creates no provider: placeholders stand for the infrastructure.
  const placeholders = new Proxy({}, { get: () => ({}) }) as Infrastructure;
  const app = await NestFactory.create(rootModule(placeholders, ApiModule), new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  const document = buildPublicDocument(app, altBasePath);
  await app.close();
  return `${JSON.stringify(document, null, 2)}\n`;
};

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const target = resolve(process.argv[2] ?? 'docs/openapi.json');
  writeFileSync(target, await publicDocumentText());
  process.stdout.write(`wrote ${target}\n`);
}
