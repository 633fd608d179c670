/*
 * @nestjs/swagger writes schemas in OpenAPI 3.0 style even when the document says 3.1. These turn
 * them into JSON Schema 2020-12, as OpenAPI 3.1 requires: `nullable: true` becomes a type list with
 * "null", a schema `example` becomes `examples: [...]`. Media-type `example`s are 3.1 already.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs'] as const;
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'contains'] as const;

export const toJsonSchema2020 = (schema: Json): Json => {
  const out: Json = { ...schema };
  if (out['nullable'] === true) {
    delete out['nullable'];
    const type = out['type'];
    if (typeof type === 'string') out['type'] = [type, 'null'];
    else if (Array.isArray(type) && !type.includes('null')) out['type'] = [...type, 'null'];
    if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
  } else if (out['nullable'] === false) {
    delete out['nullable'];
  }
  if ('example' in out) {
    if (!('examples' in out)) out['examples'] = [out['example']];
    delete out['example'];
  }
  for (const key of SUBSCHEMA_MAPS) if (isObject(out[key])) out[key] = mapSchemas(out[key]);
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map(fixSchema);
  }
  for (const key of SUBSCHEMAS) if (key in out) out[key] = fixSchema(out[key]);
  return out;
};

const fixSchema = (schema: unknown): unknown => (isObject(schema) ? toJsonSchema2020(schema) : schema);
const mapSchemas = (map: Json): Json => Object.fromEntries(Object.entries(map).map(([name, schema]) => [name, fixSchema(schema)]));

const fixContent = (content: unknown): void => {
  if (!isObject(content)) return;
  for (const media of Object.values(content)) {
    if (isObject(media) && isObject(media['schema'])) media['schema'] = toJsonSchema2020(media['schema']);
  }
};

/** Every schema of the document: components, parameters, request bodies, responses and headers. */
export const fixOpenApi30Schemas = (document: Json): void => {
  const components = document['components'];
  if (isObject(components) && isObject(components['schemas'])) components['schemas'] = mapSchemas(components['schemas']);
  const paths = document['paths'];
  if (!isObject(paths)) return;
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const operation of Object.values(item)) {
      if (!isObject(operation)) continue;
      for (const parameter of Array.isArray(operation['parameters']) ? operation['parameters'] : []) {
        if (isObject(parameter) && isObject(parameter['schema'])) parameter['schema'] = toJsonSchema2020(parameter['schema']);
      }
      if (isObject(operation['requestBody'])) fixContent(operation['requestBody']['content']);
      for (const response of isObject(operation['responses']) ? Object.values(operation['responses']) : []) {
        if (isObject(response)) fixContent(response['content']);
      }
    }
  }
};
