import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { jest } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { api, checkAnswer, internal, request } from './support/client.js';
import { type Workspace, expectError } from './support/core-helpers.js';
import { type RunningService, startService } from './support/service.js';

jest.setTimeout(60_000);

type Json = Record<string, any>;

/*
 * docs/openapi.json as third-party tools read it: Redocly's recommended ruleset and Spectral's
 * spectral:oas (the checked-in redocly.yaml and .spectral.yaml) find no error, offline; and what
 * Dredd, generated clients and fuzzers need is there for every operation, a new one included.
 * docs/internal-openapi.json is linted with the same rulesets.
 */

const PUBLIC = 'docs/openapi.json';
const INTERNAL = 'docs/internal-openapi.json';
const committed = (): Json => JSON.parse(readFileSync(PUBLIC, 'utf8')) as Json;

// No telemetry and no update check: the linters must not need the network (nor use it) in a test.
const OFFLINE = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };

interface Finding { linter: string; rule: string; severity: 'error' | 'warning'; where: string; message: string }

const redocly = (file: string): Finding[] => {
  const run = spawnSync(resolve('node_modules/.bin/redocly'), ['lint', file, '--config', 'redocly.yaml', '--format', 'json'], { env: OFFLINE, encoding: 'utf8', timeout: 45_000 });
  // Exit status 1 means "errors found"; the report is on stdout either way. Anything else is a broken run.
  if (run.status !== 0 && run.status !== 1) throw new Error(`redocly did not run: ${run.status} ${run.stderr}`);
  const report = JSON.parse(run.stdout) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
  return report.problems.map((problem) => ({
    linter: 'redocly', rule: problem.ruleId, severity: problem.severity === 'error' ? 'error' : 'warning', where: problem.location[0]?.pointer ?? '', message: problem.message,
  }));
};

const spectral = (file: string): Finding[] => {
  const out = join(mkdtempSync(join(tmpdir(), 'spectral-')), 'report.json');
  const run = spawnSync(resolve('node_modules/.bin/spectral'), ['lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--output', out, '--fail-severity', 'error'], { env: OFFLINE, encoding: 'utf8', timeout: 45_000 });
  if (run.status !== 0 && run.status !== 1) throw new Error(`spectral did not run: ${run.status} ${run.stderr}`);
  const report = JSON.parse(readFileSync(out, 'utf8')) as { code: string; severity: number; message: string; path: string[] }[];
  rmSync(join(out, '..'), { recursive: true, force: true });
  // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
  return report.map((found) => ({ linter: 'spectral', rule: found.code, severity: found.severity === 0 ? 'error' : 'warning', where: found.path.join('/'), message: found.message }));
};

const operationsOf = (document: Json): [string, string, Json][] =>
  [...Object.entries(document.paths as Json), ...Object.entries(document.webhooks as Json)].flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, operation]) => [path, method, operation as Json] as [string, string, Json]));

describe('docs/openapi.json for third-party tools', () => {
  it('passes Redocly (recommended) and Spectral (spectral:oas) without an error, and each still finds one it should', () => {
    const errors = [...redocly(PUBLIC), ...spectral(PUBLIC)].filter((finding) => finding.severity === 'error');
    expect(errors).toEqual([]);
    // The internal application's document too (its own suite checks its answers against it).
    expect([...redocly(INTERNAL), ...spectral(INTERNAL)].filter((finding) => finding.severity === 'error')).toEqual([]);

    // The same runs on a copy with a defect both rulesets call an error: the linters really ran, with their rulesets.
    const broken = committed();
    broken.paths['/v1/me'].get.operationId = broken.paths['/v1/tests'].get.operationId;
    const dir = mkdtempSync(join(tmpdir(), 'openapi-broken-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(broken));
      for (const findings of [redocly(join(dir, 'openapi.json')), spectral(join(dir, 'openapi.json'))]) {
        expect(findings.filter((finding) => finding.severity === 'error').map((finding) => finding.rule)).toEqual(['operation-operationId-unique']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('describes, tags and secures every operation and webhook, and declares every tag it uses', () => {
    const document = committed();
    const declared = (document.tags as { name: string; description?: string }[]);
    expect(declared.every((tag) => typeof tag.description === 'string' && tag.description.length > 0)).toBe(true);
    const names = declared.map((tag) => tag.name);
    for (const [path, method, operation] of operationsOf(document)) {
      const seen = { path, method, description: typeof operation.description === 'string' && operation.description.trim() !== '', security: (operation.security ?? []).length > 0 };
      expect(seen).toEqual({ path, method, description: true, security: true });
      expect({ path, method, tags: operation.tags }).toEqual({ path, method, tags: [expect.any(String)] });
      expect(names).toContain(operation.tags[0]);
    }
    expect(new Set(operationsOf(document).map(([, , operation]) => operation.tags[0]))).toEqual(new Set(names));
    expect(document.components.securitySchemes.webhookSignature).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Webhook-Signature' }));
  });

  it('gives every path parameter and request body an example its own schema accepts, and bounds every id in the path', () => {
    const document = committed();
    const ajv = new Ajv2020({ strict: false });
    (addFormatsModule as unknown as (instance: Ajv2020) => void)(ajv);
    ajv.addSchema(document, 'doc');
    const checkExample = (where: Json, schema: Json, example: unknown) => {
      const validate = ajv.compile(schema.$ref ? { $ref: `doc${schema.$ref}` } : schema);
      expect({ ...where, example: example !== undefined, valid: validate(example), errors: validate.errors ?? null }).toEqual({ ...where, example: true, valid: true, errors: null });
    };
    let parameters = 0;
    let bodies = 0;
    for (const [path, method, operation] of operationsOf(document).filter(([path]) => path.startsWith('/'))) {
      for (const parameter of (operation.parameters ?? []).filter((candidate: Json) => candidate.in === 'path')) {
        checkExample({ path, method, parameter: parameter.name }, parameter.schema, parameter.example);
        expect({ path, parameter: parameter.name, maxLength: parameter.schema.maxLength }).toEqual({ path, parameter: parameter.name, maxLength: 1000 });
        parameters += 1;
      }
      if (operation.requestBody) {
        const media = operation.requestBody.content['application/json'];
        checkExample({ path, method, body: true }, media.schema, media.example);
        bodies += 1;
      }
    }
    // assessmentId (two operations), candidateId and eventId; the two bodies.
    expect({ parameters: parameters >= 4, bodies: bodies >= 2 }).toEqual({ parameters: true, bodies: true });
  });

  it('declares the bounds the service applies to request strings and lists, and leaves the open sets open', () => {
    const document = committed();
    const query = (path: string, name: string): Json => document.paths[path].get.parameters.find((parameter: Json) => parameter.name === name);
    expect(query('/v1/candidates', 'email').schema.maxLength).toBe(254);
    for (const path of ['/v1/candidates', '/v1/results', '/v1/completions']) expect(query(path, 'assessment').schema.maxLength).toBe(1000);
    for (const path of ['/v1/assessments', '/v1/candidates', '/v1/results', '/v1/events']) {
      expect(query(path, 'cursor').schema.maxLength).toBe(1024);
      const answer = document.paths[path].get.responses['200'].content['application/json'].schema;
      expect({ path, maxItems: answer.properties.data.maxItems }).toEqual({ path, maxItems: 100 });
    }
    const schemas = document.components.schemas;
    expect([schemas.CreateAssessmentBody.properties.tests.maxItems, schemas.InviteCandidatesBody.properties.candidates.maxItems]).toEqual([10, 100]);
    // "The complete set … not shown" (contract 2.2, 4.3): today's values as examples, no enum a new type would break.
    for (const schema of [schemas.Test.properties.type, schemas.Test.properties.format, query('/v1/tests', 'type').schema]) {
      expect(schema).toEqual(expect.objectContaining({ type: 'string', examples: expect.any(Array) }));
      expect(schema.enum).toBeUndefined();
    }
    // No maximum on the original endpoint's `page`: any whole page past the end is 200 (product decisions).
    expect(query('/candidates', 'page').schema).toEqual({ type: 'integer', minimum: 1, default: 1 });
  });

  it('declares on every operation the refusals made before any route: 408 and 431, with X-Request-Id', () => {
    const document = committed();
    for (const [path, method, operation] of operationsOf(document).filter(([path]) => path.startsWith('/'))) {
      expect({ path, method, 408: operation.responses['408'], 431: operation.responses['431'] }).toEqual({
        path, method, 408: { $ref: '#/components/responses/RequestTimeout' }, 431: { $ref: '#/components/responses/RequestTooLarge' },
      });
    }
    for (const name of ['RequestTimeout', 'RequestTooLarge']) {
      expect(document.components.responses[name].headers).toEqual({ 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } });
    }
    expect(document.info.version).toBe('1.2.0');
  });
});

/** Item by item, what generated requests found where the service and the document disagreed (docs/api.md, "Requests and errors"). */
describe('the service answers as the document says at its edges', () => {
  let service: RunningService;
  let ws: Workspace;

  beforeAll(async () => {
    service = await startService();
    ws = await internal(service).workspace({ name: 'Edges' });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('accepts the request bodies the document shows as examples, with the outcomes its answer examples show', async () => {
    const document = committed();
    const create = document.paths['/v1/assessments'].post.requestBody.content['application/json'].example;
    const created = await api(service, ws.live).post('/v1/assessments', create);
    expect({ status: created.status, name: created.body.data?.name }).toEqual({ status: 201, name: create.name });
    const invite = document.paths['/v1/assessments/{assessmentId}/invitations'].post;
    const invited = await api(service, ws.live).post(`/v1/assessments/${created.body.data.id}/invitations`, invite.requestBody.content['application/json'].example);
    const shown = invite.responses['200'].content['application/json'].example;
    expect({ status: invited.status, outcomes: invited.body.data.map((entry: Json) => [entry.status, entry.reason]) })
      .toEqual({ status: 200, outcomes: shown.data.map((entry: Json) => [entry.status, entry.reason]) });
  });

  it('431 for a request line over 16 KiB, on every path, in the main error shape and with an X-Request-Id', async () => {
    for (const path of ['/v1/me', '/api/v1/candidates', '/candidates']) {
      const answer = await request(`${service.baseUrl}${path}?q=${'a'.repeat(20_000)}`, { headers: { authorization: `Bearer ${ws.live}`, 'x-request-id': 'mine' } });
      expectError(answer, 431, 'request_too_large');
      // Its headers were not read: the id is a new one.
      expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('refuses before the credential only what no route can read: an id no route holds (404), a body over 1 MiB (413)', async () => {
    for (const credential of [{}, { authorization: `Bearer ${ws.live}` }] as Record<string, string>[]) {
      for (const id of ['%zz', 'x'.repeat(1001), 'a%00b']) {
        expectError(await request(`${service.baseUrl}/v1/assessments/${id}`, { headers: credential }), 404, 'not_found');
      }
      const huge = JSON.stringify({ name: 'x'.repeat(1_100_000), tests: ['numerical-reasoning'] });
      expectError(await request(`${service.baseUrl}/v1/assessments`, { method: 'POST', headers: { ...credential, 'content-type': 'application/json' }, raw: huge }), 413, 'payload_too_large');
    }
  });

  it('a body that is not UTF-8 is 401 without a credential, and 400 invalid_json with one, on both ports', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","tests":["numerical-reasoning"]}')]);
    const post = async (url: string, headers: Record<string, string>) => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: bytes });
      await checkAnswer('POST', url, response);
      return { status: response.status, code: ((await response.json()) as Json).error?.code };
    };
    const before = (await api(service, ws.live).get('/v1/assessments')).body.data.length as number;
    expect(await post(`${service.baseUrl}/v1/assessments`, {})).toEqual({ status: 401, code: 'unauthorized' });
    expect(await post(`${service.baseUrl}/v1/assessments`, { authorization: `Bearer ${ws.live}` })).toEqual({ status: 400, code: 'invalid_json' });
    expect(await post(`${service.internalUrl}/internal/workspaces`, {})).toEqual({ status: 401, code: 'unauthorized' });
    expect(await post(`${service.internalUrl}/internal/workspaces`, { authorization: `Bearer ${service.internalToken}` })).toEqual({ status: 400, code: 'invalid_json' });
    // Nothing was created.
    expect((await api(service, ws.live).get('/v1/assessments')).body.data).toHaveLength(before);
  });

  it('bounds email and cursor as documented (an assessment id too long is unknown); a cursor beside unlocked_since is ignored, whatever it is', async () => {
    const live = api(service, ws.live);
    const address = `${'a'.repeat(254 - '@example.com'.length)}@example.com`;
    expect((await live.get(`/v1/candidates?email=${address}`)).body).toEqual({ data: [], meta: { nextCursor: null } });
    expectError(await live.get(`/v1/candidates?email=a${address}`), 400, 'invalid_parameter');
    // An id is any text (contract 1): a longer one than the document allows is an id nothing has.
    for (const length of [1000, 1001]) expectError(await live.get(`/v1/completions?assessment=${'x'.repeat(length)}`), 404, 'not_found');
    const issued = (await live.get('/v1/events?limit=1')).body.meta.nextCursor as string;
    expect(issued.length).toBeLessThan(1024);
    expectError(await live.get(`/v1/events?cursor=${issued}${'A'.repeat(1024 - issued.length + 1)}`), 400, 'invalid_cursor');
    expectError(await live.get(`/v1/results?cursor=${'A'.repeat(1025)}`), 400, 'invalid_cursor');
    const since = 'unlocked_since=2026-01-01';
    const without = await live.get(`/v1/results?${since}`);
    for (const cursor of ['not-a-cursor', issued, 'A'.repeat(5000)]) {
      const answer = await live.get(`/v1/results?${since}&cursor=${cursor}`);
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: without.body });
    }
  });
});
