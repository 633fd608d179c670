import { fixOpenApi30Schemas, toJsonSchema2020 } from './openapi-31.js';

describe('OpenAPI 3.0 schemas made JSON Schema 2020-12', () => {
  it('turns nullable into a type list and a schema example into examples, at every depth', () => {
    expect(toJsonSchema2020({
      type: 'object',
      properties: { deadline: { type: 'string', nullable: true, example: '2026-12-31' }, tags: { type: 'array', items: { type: 'string', nullable: true } } },
    })).toEqual({
      type: 'object',
      properties: { deadline: { type: ['string', 'null'], examples: ['2026-12-31'] }, tags: { type: 'array', items: { type: ['string', 'null'] } } },
    });
    expect(toJsonSchema2020({ type: 'string', enum: ['a'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
  });

  it('fixes components, parameters, bodies and answers, and leaves media-type examples alone', () => {
    const document = {
      components: { schemas: { A: { type: 'integer', nullable: true } } },
      paths: {
        '/x': {
          post: {
            parameters: [{ name: 'q', in: 'query', schema: { type: 'string', nullable: true } }],
            requestBody: { content: { 'application/json': { schema: { type: 'number', nullable: true } } } },
            responses: { 200: { content: { 'application/json': { schema: { type: 'boolean', nullable: true }, example: true } } } },
          },
        },
      },
    };
    fixOpenApi30Schemas(document);
    expect(JSON.stringify(document)).not.toContain('nullable');
    expect(document.paths['/x'].post.responses[200].content['application/json']).toEqual({ schema: { type: ['boolean', 'null'] }, example: true });
  });
});
