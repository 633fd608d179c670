import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { launchBrowser } from './support/browser.js';
import { request } from './support/client.js';
import { type RunningService, startService } from './support/service.js';

jest.setTimeout(60_000);

const committed = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;

const OPERATIONS = [
  ['get', '/v1/me'], ['get', '/v1/tests'], ['post', '/v1/assessments'], ['get', '/v1/assessments'], ['get', '/v1/assessments/{assessmentId}'],
  ['post', '/v1/assessments/{assessmentId}/invitations'], ['get', '/v1/candidates'], ['get', '/v1/candidates/{candidateId}'],
  ['get', '/v1/completions'], ['get', '/v1/results'], ['get', '/candidates'],
  // API 1.2.0
  ['get', '/v1/assessments/{assessmentId}/invitations'],
] as const;

describe('the published contract: /openapi.json, /docs, /internal/openapi.json', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService();
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('serves docs/openapi.json as committed, without credentials, on both bases', async () => {
    const expected = committed('docs/openapi.json');
    for (const base of ['', '/api']) {
      const answer = await request(`${service.baseUrl}${base}/openapi.json`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      // Run `npm run openapi:write` after changing a controller, a DTO or a schema.
      expect(answer.body).toEqual(expected);
    }
  });

  it('is outside the rate limit: no rate-limit headers, and more than 120 requests a minute are all answered', async () => {
    const answers = await Promise.all(Array.from({ length: 125 }, () => request(`${service.baseUrl}/openapi.json`)));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(answers[0]?.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('passes an independent OpenAPI 3.1 validator', async () => {
    const validator = new Validator();
    const result = await validator.validate((await request(`${service.baseUrl}/openapi.json`)).body);
    expect(result).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
  });

  it('documents every operation of the contract, both credential forms, both bases and the six webhooks', () => {
    const document = committed('docs/openapi.json');
    expect(document.openapi).toMatch(/^3\.1\./);
    for (const [method, path] of OPERATIONS) {
      const operation = document.paths[path]?.[method];
      expect({ path, method, found: operation !== undefined }).toEqual({ path, method, found: true });
      expect(operation.security).toEqual([{ keySecretBearer: [] }, { keySecretBasic: [] }]);
      for (const status of ['200', '201'].filter((code) => operation.responses[code])) {
        expect(Object.keys(operation.responses[status].headers)).toEqual(expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']));
      }
      expect(operation.responses['429'].headers).toHaveProperty('Retry-After');
    }
    expect(document.paths['/candidates'].get.deprecated).toBe(true);
    expect(document.paths['/v1/assessments/{assessmentId}/invitations'].post.responses['200'].headers).toHaveProperty('Idempotent-Replayed');
    expect(document.components.securitySchemes).toEqual({
      keySecretBearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      keySecretBasic: expect.objectContaining({ type: 'http', scheme: 'basic' }),
      // What a webhook receiver checks: the service's signature.
      webhookSignature: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Webhook-Signature' }),
    });
    expect(document.servers.map((server: { url: string }) => server.url)).toEqual(['/', '/api']);
    expect(Object.keys(document.webhooks).sort()).toEqual(
      ['assessmentCompleted', 'assessmentStarted', 'candidateCreated', 'candidateInvited', 'resultUnlocked', 'testCompleted'],
    );
    const envelope = document.components.schemas.TestCompletedEnvelope;
    expect(envelope.properties.sandbox).toEqual(expect.objectContaining({ const: true }));
    const headers = document.webhooks.testCompleted.post.parameters.map((parameter: { name: string }) => parameter.name);
    expect(headers).toContain('X-Webhook-Signature');
    // JSON Schema 2020-12 nullables, no 3.0 leftovers anywhere.
    expect(document.components.schemas.Result.properties.unlockedAt.type).toEqual(['string', 'null']);
    expect(JSON.stringify(document)).not.toContain('"nullable"');
  });

  it('gives examples that match their own schemas', () => {
    const document = committed('docs/openapi.json');
    const ajv = new Ajv2020({ strict: false });
    (addFormatsModule as unknown as (instance: Ajv2020) => void)(ajv);
    ajv.addSchema(document, 'doc');
    let checked = 0;
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          const media = response.content?.['application/json'];
          if (media?.example === undefined) continue;
          const pointer = ['paths', path, method, 'responses', status, 'content', 'application/json', 'schema'].map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
          const validate = ajv.compile({ $ref: `doc#/${pointer}` });
          expect({ operation: operation.operationId, status, valid: validate(media.example), errors: validate.errors ?? null }).toEqual({ operation: operation.operationId, status, valid: true, errors: null });
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(OPERATIONS.length);
  });

  it('renders /docs (and /docs/) in Chromium with every operation listed, from local assets only', async () => {
    const chromium = await launchBrowser();
    try {
      const page = await chromium.browser.newPage();
      const requested: string[] = [];
      const failed: string[] = [];
      page.on('request', (sent) => requested.push(sent.url()));
      page.on('response', (answer) => { if (answer.status() >= 400) failed.push(`${answer.status()} ${answer.url()}`); });
      // With and without a trailing slash, on both bases: the same page, its assets and document found.
      for (const path of ['/docs', '/docs/', '/api/docs', '/api/docs/']) {
        await page.goto(`${service.baseUrl}${path}`);
        await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
        const listed = await page.$$eval('.opblock-summary', (rows) => rows.map((row) => row.textContent?.replace(/\s+/g, ' ').trim() ?? ''));
        for (const [method, path] of OPERATIONS) {
          expect(listed.some((row) => row.toUpperCase().startsWith(method.toUpperCase()) && row.includes(path))).toBe(true);
        }
        expect(await page.title()).toContain('Hiring-Test');
      }
      expect(requested.filter((url) => !url.startsWith(service.baseUrl))).toEqual([]);
      expect(failed).toEqual([]);
      await page.close();
    } finally {
      await chromium.close();
    }
  });

  it('serves the internal application its own document, behind the internal token', async () => {
    expect((await request(`${service.internalUrl}/internal/openapi.json`)).status).toBe(401);
    const answer = await request(`${service.internalUrl}/internal/openapi.json`, { headers: { authorization: `Bearer ${service.internalToken}` } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(committed('docs/internal-openapi.json'));
    expect(await new Validator().validate(answer.body)).toEqual({ valid: true });
    expect(Object.keys(answer.body.paths)).toEqual(expect.arrayContaining(['/internal/workspaces', '/internal/registrations', '/internal/results/{resultId}/unlock']));
    expect((await request(`${service.baseUrl}/internal/openapi.json`)).status).toBe(404);
  });
});
