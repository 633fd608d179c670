// Writes apps/api/src/openapi/examples.json from real answers of a running service, so the examples
// of docs/openapi.json are answers the service really gave. Usage, on a fresh service of its own
// (the examples show its only workspace and its app links on app.example.com):
//   npm run build:all && DATA_DIR=$(mktemp -d) PORT=3000 INTERNAL_PORT=3100 INTERNAL_TOKEN=… APP_URL=https://app.example.com \
//     DEMO_WORKSPACE=false QUEUE_PREFIX=capture node dist/apps/standalone/src/main.js
//   BASE_URL=http://localhost:3000 INTERNAL_URL=http://localhost:3100 INTERNAL_TOKEN=… node scripts/capture-openapi-examples.mjs
// then `npm run openapi:write` and `npm run examples:types`.
import { writeFileSync } from 'node:fs';
// The request bodies the document shows (built: `npm run build:all` first), so its examples are these requests' answers.
import { REQUEST_EXAMPLES } from '../dist/apps/api/src/openapi/request-examples.js';

const base = process.env.BASE_URL ?? 'http://localhost:3000';
const internalUrl = process.env.INTERNAL_URL ?? 'http://localhost:3100';
const token = process.env.INTERNAL_TOKEN;
if (!token) throw new Error('INTERNAL_TOKEN is required');

const call = async (url, method, authorization, body) => {
  const response = await fetch(url, { method, headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const json = await response.json();
  if (response.status >= 400) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
};
const internal = (method, path, body) => call(`${internalUrl}${path}`, method, `Bearer ${token}`, body);

const workspace = (await internal('POST', '/internal/workspaces', { name: 'Acme Recruiting' })).data;
await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
const key = (await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' })).data;
const auth = `Bearer ${key.key}:${key.secret}`;
const api = (method, path, body) => call(`${base}${path}`, method, auth, body);

const assessment = await api('POST', '/v1/assessments', REQUEST_EXAMPLES.createAssessment);
const assessmentId = assessment.data.id;
const invitations = await api('POST', `/v1/assessments/${assessmentId}/invitations`, REQUEST_EXAMPLES.inviteCandidates);
const registered = (await internal('POST', '/internal/registrations', { invitationUrl: invitations.data[0].invitationUrl })).data;
const { candidateId } = registered;
await internal('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/start`);
const score = { scorePercentage: 82.5, speedCompleted: 1260, questionsAnswered: 24, questionsCorrect: 20, questionsIncorrect: 4, questionsTotal: 24 };
const first = (await internal('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/tests/numerical-reasoning/complete`, { ...score, result: 'pass' })).data;
// Unlocked before the second test is finished, so the first page of the feed shows a locked testCompleted and its resultUnlocked.
await internal('POST', `/internal/results/${first.resultId}/unlock`);
await internal('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/tests/big-five-personality/complete`, {
  ...score, scorePercentage: 64, result: null, scores: { openness: 0.71, conscientiousness: 0.64, extraversion: 0.38, agreeableness: 0.59, neuroticism: 0.22 },
});
const completed = (await api('GET', '/v1/events?type=assessmentCompleted')).data[0];
// The second result unlocked after the completion: the completion's updatedAt moves past its completedAt (API 1.2.0).
await new Promise((resolve) => setTimeout(resolve, 1500));
const secondResultId = (await api('GET', `/v1/results?assessment=${assessmentId}&limit=2`)).data[1].id;
await internal('POST', `/internal/results/${secondResultId}/unlock`);

const examples = {
  me: await api('GET', '/v1/me'),
  tests: await api('GET', '/v1/tests?type=programming'),
  assessment: await api('GET', `/v1/assessments/${assessmentId}`),
  assessments: await api('GET', '/v1/assessments?limit=1'),
  invitations,
  candidate: await api('GET', `/v1/candidates/${candidateId}`),
  candidates: await api('GET', '/v1/candidates?limit=1'),
  results: await api('GET', '/v1/results?limit=2'),
  completions: await api('GET', `/v1/completions?updated_since=${encodeURIComponent(completed.data.completedAt)}&order=asc&limit=1`),
  legacyCandidates: await api('GET', '/candidates?per_page=1'),
  // candidateInvited, candidateCreated, assessmentStarted, testCompleted (locked), resultUnlocked; more follow.
  events: await api('GET', '/v1/events?limit=5'),
  event: await api('GET', `/v1/events/${completed.id}`),
};
// API 1.2.0: a second person invited last (after the answers above were taken), who stays pending beside Ann, registered.
await api('POST', `/v1/assessments/${assessmentId}/invitations`, { candidates: [{ email: 'bo.chen@example.com', firstName: 'Bo', surname: 'Chen' }] });
examples.invitationsList = await api('GET', `/v1/assessments/${assessmentId}/invitations?limit=2`);
examples.tests.data = examples.tests.data.slice(0, 2);
examples.tests.meta.total = examples.tests.data.length;

writeFileSync('apps/api/src/openapi/examples.json', `${JSON.stringify(examples, null, 2)}\n`);
process.stdout.write('wrote apps/api/src/openapi/examples.json\n');
