import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/*
 * docs/internal-openapi.json as the tests read it: its operations, a validator for any schema of it,
 * and a strict copy in which no object of an answer may hold a property the document does not
 * describe (the document itself stays open to new properties, as the public one is).
 */

export type Json = Record<string, any>;

export interface InternalOperation {
  id: string;
  method: string;
  path: string;
  pattern: RegExp;
  operation: Json;
}

export const DOCUMENT: Json = JSON.parse(readFileSync('docs/internal-openapi.json', 'utf8'));

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const OPERATIONS: InternalOperation[] = Object.entries(DOCUMENT.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).map(([method, operation]) => ({
    id: String(operation.operationId), method: method.toUpperCase(), path, operation,
    pattern: new RegExp(`^${path.split(/\{[^}]+\}/).map(escape).join('[^/]+')}$`),
  })));

export const operationOf = (method: string, pathname: string): InternalOperation | undefined =>
  OPERATIONS.find((candidate) => candidate.method === method.toUpperCase() && candidate.pattern.test(pathname));

/** Objects described by their properties, and nothing else: every object schema closed unless it says otherwise. */
const closed = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(closed);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Json = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, closed(inner)]));
  if (copy.properties && typeof copy.properties === 'object' && copy.additionalProperties === undefined && !('$ref' in copy)) copy.additionalProperties = false;
  return copy;
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (instance: Ajv2020) => void)(ajv);
ajv.addSchema(DOCUMENT, 'internal');
ajv.addSchema(closed(DOCUMENT) as Json, 'internal-strict');

const pointer = (parts: string[]): string => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const compiled = new Map<string, ValidateFunction>();

/** A validator for the schema at these JSON-pointer parts of the document (or of its strict copy). */
export const validatorAt = (parts: string[], strict = false): ValidateFunction => {
  const ref = `${strict ? 'internal-strict' : 'internal'}#/${pointer(parts)}`;
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  return validate;
};

export const errorsOf = (validate: ValidateFunction): string => ajv.errorsText(validate.errors);

/** The schema a `$ref` points at (one level), or the schema itself. */
export const resolved = (schema: Json): Json =>
  typeof schema?.$ref === 'string' ? schema.$ref.slice(2).split('/').reduce((node: Json, key: string) => node[key], DOCUMENT) : schema;
