import { DOCUMENT, type Json, OPERATIONS, errorsOf, resolved, validatorAt } from './support/internal-document.js';

/*
 * docs/internal-openapi.json on its own: every operation described (id, tag, summary, description),
 * every answer with a schema and a real example that the schema accepts, and schemas that say
 * something: without any required property of a real answer the answer is refused. What the service
 * answers is checked against the same document by every e2e suite (test/support/openapi-conformance.ts)
 * and, route by route, by test/internal-answers.e2e.spec.ts.
 */

const JSON_TYPE = 'application/json';
const responses = (operation: Json): [string, Json][] => Object.entries(operation.responses as Json);
const successes = (operation: Json): [string, Json][] => responses(operation).filter(([status]) => status.startsWith('2'));

describe('docs/internal-openapi.json', () => {
  it('describes every operation: a unique operationId, one declared tag, a summary and a description', () => {
    const ids = OPERATIONS.map(({ id }) => id);
    expect(ids.length).toBeGreaterThanOrEqual(28);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Map((DOCUMENT.tags as Json[]).map((tag) => [tag.name, tag.description]));
    for (const { id, operation } of OPERATIONS) {
      expect({ id, validId: /^[a-z][A-Za-z]+$/.test(id), tags: operation.tags?.length, declared: tags.has(operation.tags?.[0]) })
        .toEqual({ id, validId: true, tags: 1, declared: true });
      expect({ id, summary: typeof operation.summary, description: String(operation.description ?? '').length > 40 }).toEqual({ id, summary: 'string', description: true });
    }
    for (const description of tags.values()) expect(String(description).length).toBeGreaterThan(10);
    expect(DOCUMENT.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(DOCUMENT.security).toEqual([{ internalToken: [] }]);
    expect(DOCUMENT.info.description).toContain('Authorization: Bearer <INTERNAL_TOKEN>');
  });

  it('gives every JSON answer a schema of its own (no bare `{ data }`) and a real example, every refusal the error shape with its codes', () => {
    for (const { id, path, operation } of OPERATIONS) {
      for (const [status, response] of successes(operation)) {
        if (status === '204' || id === 'exportEventLog') continue;
        const media = response.content?.[JSON_TYPE];
        const data = media?.schema?.properties?.data;
        expect({ id, status, described: typeof (data?.$ref ?? data?.items?.$ref) === 'string', example: media?.example !== undefined })
          .toEqual({ id, status, described: true, example: true });
      }
      for (const [status, response] of responses(operation).filter(([code]) => !code.startsWith('2'))) {
        const codes = response.content?.[JSON_TYPE]?.schema?.properties?.error?.properties?.code?.enum;
        expect({ id, status, codes: Array.isArray(codes) && codes.length > 0 }).toEqual({ id, status, codes: true });
      }
      // Every route refuses a missing token and can fail; a route with a path id answers 404.
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '401', '500', ...(path.includes('{') ? ['404'] : [])]));
    }
  });

  it('gives examples its own schemas accept: answers, request bodies and parameters', () => {
    let checked = 0;
    for (const { id, path, method, operation } of OPERATIONS) {
      for (const [status, response] of successes(operation)) {
        const example = response.content?.[JSON_TYPE]?.example;
        if (example === undefined) continue;
        const validate = validatorAt(['paths', path, method.toLowerCase(), 'responses', status, 'content', JSON_TYPE, 'schema']);
        expect({ id, status, valid: validate(example), errors: validate.errors ? errorsOf(validate) : null }).toEqual({ id, status, valid: true, errors: null });
        checked += 1;
      }
      const body = operation.requestBody?.content?.[JSON_TYPE];
      if (body) {
        const validate = validatorAt(['paths', path, method.toLowerCase(), 'requestBody', 'content', JSON_TYPE, 'schema']);
        const examples = Object.values(body.examples ?? {}) as Json[];
        expect({ id, examples: examples.length }).toEqual({ id, examples: 1 });
        for (const example of examples) expect({ id, valid: validate(example.value), errors: validate.errors ? errorsOf(validate) : null }).toEqual({ id, valid: true, errors: null });
      }
      ((operation.parameters ?? []) as Json[]).forEach((parameter, index) => {
        const validate = validatorAt(['paths', path, method.toLowerCase(), 'parameters', String(index), 'schema']);
        expect({ id, name: parameter.name, example: parameter.example !== undefined, valid: validate(parameter.example), description: typeof parameter.description })
          .toEqual({ id, name: parameter.name, example: true, valid: true, description: 'string' });
      });
    }
    expect(checked).toBeGreaterThanOrEqual(27);
  });

  it('has schemas that say something: a real answer without any one of its required properties is refused, and none of its properties is undescribed', () => {
    let refused = 0;
    for (const { id, path, method, operation } of OPERATIONS) {
      for (const [status, response] of successes(operation)) {
        const media = response.content?.[JSON_TYPE];
        if (media?.example === undefined) continue;
        const validate = validatorAt(['paths', path, method.toLowerCase(), 'responses', status, 'content', JSON_TYPE, 'schema']);
        const dataSchema = resolved(media.schema.properties.data);
        const list = dataSchema.type === 'array';
        const itemSchema = list ? resolved(dataSchema.items) : dataSchema;
        const item: Json = list ? media.example.data[0] : media.example.data;
        expect({ id, item: typeof item }).toEqual({ id, item: 'object' });
        expect({ id, undescribed: Object.keys(item).filter((key) => !(key in itemSchema.properties)) }).toEqual({ id, undescribed: [] });
        for (const name of itemSchema.required as string[]) {
          const { [name]: _removed, ...rest } = item;
          const broken = { ...media.example, data: list ? [rest, ...media.example.data.slice(1)] : rest };
          expect({ id, without: name, valid: validate(broken) }).toEqual({ id, without: name, valid: false });
          refused += 1;
        }
      }
    }
    expect(refused).toBeGreaterThan(100);
  });
});
