import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { HttpAnswer } from './client.js';

/*
 * Every answer the end-to-end suites receive from a documented operation is checked against the
 * committed OpenAPI documents (docs/openapi.json on the public port, docs/internal-openapi.json on
 * the internal one): the status must be
 * documented for that operation, the body must match its schema (an error's code must be one the
 * operation lists for that status) and the required headers must be there. A mismatch fails the
 * test that made the request, so behaviour and document cannot disagree silently.
 */

type Json = Record<string, any>;

interface Operation {
  pattern: RegExp;
  path: string;
  method: string;
  operation: Json;
}

interface LoadedDocument {
  name: string;
  document: Json;
  operations: Operation[];
  /** Prefixes stripped before matching: the alternative base path serves the same paths. */
  bases: string[];
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const load = (name: string, file: string, bases: string[]): LoadedDocument => {
  const path = resolve(file);
  // Without its document every answer would pass unchecked: a missing file stops the suite instead.
  if (!existsSync(path)) throw new Error(`${path} is missing: every e2e answer is checked against it (npm run openapi:write writes it)`);
  const document = JSON.parse(readFileSync(path, 'utf8')) as Json;
  ajv.addSchema(document, name);
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Json)) {
    const pattern = new RegExp(`^${template.split(/\{[^}]+\}/).map(escape).join('[^/]+')}$`);
    for (const [method, operation] of Object.entries(item as Json)) operations.push({ pattern, path: template, method: method.toUpperCase(), operation });
  }
  return { name, document, operations, bases };
};

const PUBLIC = load('public', 'docs/openapi.json', ['/api']);
const INTERNAL = load('internal', 'docs/internal-openapi.json', []);

const validators = new Map<string, ValidateFunction>();

const pointer = (...parts: string[]): string => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The schema of a JSON answer, where the response is written out or (`$ref`) where it refers to one of components.responses. */
const validatorFor = (loaded: LoadedDocument, found: Operation, status: string): ValidateFunction => {
  const declared = (found.operation.responses as Json)[status] as Json;
  const at = typeof declared['$ref'] === 'string'
    ? `${declared['$ref'].slice(2)}/${pointer('content', 'application/json', 'schema')}`
    : pointer('paths', found.path, found.method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema');
  const ref = `${loaded.name}#/${at}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
};

const find = (loaded: LoadedDocument, method: string, pathname: string): { loaded: LoadedDocument; found: Operation } | null => {
  const candidates = [pathname, ...loaded.bases.filter((base) => pathname.startsWith(`${base}/`)).map((base) => pathname.slice(base.length))];
  for (const path of candidates) {
    const found = loaded.operations.find((operation) => operation.method === method && operation.pattern.test(path));
    if (found) return { loaded, found };
  }
  return null;
};

const resolveRef = (document: Json, value: Json): Json => {
  if (typeof value?.$ref !== 'string') return value;
  return value.$ref.slice(2).split('/').reduce((node: Json, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
};

/** The internal application's origins, answering by docs/internal-openapi.json. */
const internalOrigins = new Set<string>();
export const markInternalOrigin = (url: string): void => {
  internalOrigins.add(new URL(url).origin);
};

/** Throws when a documented operation answered something its document does not describe. */
export const checkConformance = (method: string, url: string, answer: HttpAnswer): void => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  const match = find(internalOrigins.has(parsed.origin) ? INTERNAL : PUBLIC, method.toUpperCase(), parsed.pathname);
  const { pathname } = parsed;
  if (!match) return;
  const { loaded, found } = match;
  const status = String(answer.status);
  const where = `${method.toUpperCase()} ${pathname} answered ${status}`;
  const declared = (found.operation.responses as Json)[status];
  if (!declared) throw new Error(`${where}, a status ${loaded.name} document does not list for ${found.method} ${found.path}: ${answer.text.slice(0, 300)}`);
  const response = resolveRef(loaded.document, declared);
  for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
    if (resolveRef(loaded.document, header as Json).required === true && !answer.headers.has(name)) throw new Error(`${where} without the required header ${name}`);
  }
  if (!response.content?.['application/json']) return;
  const validate = validatorFor(loaded, found, status);
  if (!validate(answer.body)) {
    throw new Error(`${where}, a body that does not match the document: ${ajv.errorsText(validate.errors)}: ${answer.text.slice(0, 500)}`);
  }
};
