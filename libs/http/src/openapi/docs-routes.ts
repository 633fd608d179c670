import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/** Swagger UI 5 from npm, served by the service itself: the page loads nothing from elsewhere. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const swaggerUiDir = (): string => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

// Relative links: the page works on both bases and at `/docs/` (`assets`: its files from where it is served).
const page = (assets: string): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Hiring-Test Assessment API</title>
  <link rel="stylesheet" href="${assets}swagger-ui.css">
  <link rel="icon" type="image/png" href="${assets}favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assets}swagger-ui-bundle.js"></script>
  <script src="${assets}swagger-ui-standalone-preset.js"></script>
  <script src="${assets}init.js"></script>
</body>
</html>
`;
const PAGE = page('docs/');
const PAGE_UNDER_SLASH = page('');

const INIT = `window.ui = SwaggerUIBundle({
  url: location.pathname.endsWith('/') ? '../openapi.json' : 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  validatorUrl: null,
});
`;

// No inline script: the page can be served under a strict Content-Security-Policy.
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'",
  'x-content-type-options': 'nosniff',
};

/** `GET /openapi.json` and `GET /docs` on Fastify, outside Nest's guards: no credential, no rate limit, no workspace data. */
export const mountPublicDocs = (instance: FastifyInstance, document: object): void => {
  const json = JSON.stringify(document);
  const dir = swaggerUiDir();
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(dir, name)) }]));
  instance.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(json));
  instance.get('/docs', async (_request, reply) => reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(PAGE));
  instance.get('/docs/', async (_request, reply) => reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(PAGE_UNDER_SLASH));
  instance.get('/docs/init.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(INIT));
  instance.get('/docs/:asset', async (request, reply) => {
    const asset = assets.get((request.params as { asset: string }).asset);
    if (!asset) return reply.status(404).send({ error: { code: 'not_found', message: 'Not found.' } });
    return reply.header('cache-control', 'public, max-age=86400').type(asset.type).send(asset.body);
  });
};
