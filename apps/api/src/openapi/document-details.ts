import { MAX_CANDIDATES_PER_REQUEST } from '#domain';
import { MAX_ID_LENGTH } from '#http';
import { PARAMETER_EXAMPLES, REQUEST_EXAMPLES } from './request-examples.js';

/*
 * What tools need beyond the shapes (Dredd, generated clients, Redocly, Spectral): examples, bounds
 * and declared tags, on every operation (test/openapi-tools.e2e.spec.ts fails on one without them).
 */

type Json = Record<string, unknown>;

const TAGS: Record<string, string> = {
  Workspace: 'The workspace of the API key, the mode of the key and the sandbox allowance',
  Tests: 'The library catalogue: the tests assessments are made of',
  Assessments: 'Assessments: one to ten tests, taken by candidates in order',
  Invitations: 'Inviting people to an assessment by e-mail',
  Candidates: 'Candidates of the workspace, in the mode of the key, with their progress and results',
  Results: 'Completed tests, for syncing forward',
  Completions: 'Finished assessments: candidates who completed every test of one',
  Events: 'The events feed: the envelopes webhooks carry, listed for 30 days',
  'Original endpoint': 'The original, unversioned candidates endpoint, kept unchanged for existing integrations',
  Webhooks: 'What the service POSTs to the webhook address saved on the integrations page',
};

const PATH_DESCRIPTIONS: Record<string, string> = {
  assessmentId: 'Assessment id',
  candidateId: 'Candidate id',
  eventId: 'Event id: the `id` of an envelope',
};

const BODY_NOTE = 'Read as JSON whatever the `Content-Type` says (send `application/json`). A body that is not a JSON object is 400 `invalid_json`, '
  + 'answered after the credential is checked; a body over 1 MiB is 413, answered before.';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Path parameters: their bound (the router's) and a description. */
const describePathParameter = (parameter: Json): void => {
  const name = String(parameter['name']);
  const schema = (parameter['schema'] ??= { type: 'string' }) as Json;
  schema['maxLength'] = MAX_ID_LENGTH;
  const what = PATH_DESCRIPTIONS[name];
  parameter['description'] ??= `${what ?? 'Id'}, used exactly as received; one that does not exist, belongs to another workspace or is longer than ${MAX_ID_LENGTH} characters is 404 \`not_found\``;
};

/** Answers that list one entry per item of the request, by operationId. */
const ENTRIES_PER_REQUEST: Record<string, number> = { inviteCandidates: MAX_CANDIDATES_PER_REQUEST };

/** A list bounded by `limit` holds at most limit's maximum rows; one entry per person sent, at most the people a request may send. */
const boundListAnswer = (operation: Json): void => {
  const parameters = (operation['parameters'] ?? []) as Json[];
  const limit = parameters.find((parameter) => parameter['in'] === 'query' && parameter['name'] === 'limit');
  const maximum = isObject(limit?.['schema']) ? limit['schema']['maximum'] : ENTRIES_PER_REQUEST[String(operation['operationId'])];
  if (typeof maximum !== 'number') return;
  const responses = operation['responses'] as Record<string, Json>;
  const schema = ((responses['200']?.['content'] as Json | undefined)?.['application/json'] as Json | undefined)?.['schema'];
  const data = isObject(schema) && isObject(schema['properties']) ? schema['properties']['data'] : undefined;
  if (isObject(data) && data['type'] === 'array') data['maxItems'] ??= maximum;
};

const describeOperation = (operation: Json): void => {
  for (const parameter of (operation['parameters'] ?? []) as Json[]) {
    if (parameter['in'] === 'path') describePathParameter(parameter);
    const example = PARAMETER_EXAMPLES[String(parameter['name'])];
    if (example !== undefined) parameter['example'] ??= example;
  }
  const body = operation['requestBody'];
  if (isObject(body)) {
    body['description'] ??= BODY_NOTE;
    const media = (body['content'] as Json | undefined)?.['application/json'];
    const example = REQUEST_EXAMPLES[String(operation['operationId'])];
    if (isObject(media) && example !== undefined) media['example'] ??= example;
  }
  boundListAnswer(operation);
};

/** The tags the operations and webhooks use, in order of first use, each with its description. */
const declaredTags = (document: Json): Json[] => {
  const names: string[] = [];
  for (const items of [document['paths'], document['webhooks']]) {
    for (const item of Object.values((items ?? {}) as Record<string, Record<string, Json>>)) {
      for (const operation of Object.values(item)) {
        for (const tag of (operation['tags'] ?? []) as string[]) if (!names.includes(tag)) names.push(tag);
      }
    }
  }
  return names.map((name) => (TAGS[name] ? { name, description: TAGS[name] } : { name }));
};

export const addToolDetails = (document: Json): void => {
  for (const item of Object.values(document['paths'] as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) describeOperation(operation);
  }
  document['tags'] = declaredTags(document);
};
