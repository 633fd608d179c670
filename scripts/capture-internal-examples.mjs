// Writes apps/simulator/src/openapi/internal-examples.json from real answers of the internal application,
// so the examples of docs/internal-openapi.json are answers the service really gave. It starts the
// built service on its own (a fresh DATA_DIR, free ports, its own queue prefix, the simulated clock,
// APP_URL https://app.example.com) and a local webhook receiver, walks every internal route, and
// stops both. Needs Redis (REDIS_URL or 127.0.0.1:6379). Usage:
//   npm run build:all && node scripts/capture-internal-examples.mjs && npm run openapi:write
// The receiver's local address is written as https://hooks.example.com/hiring (the only edit).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOOK_URL = 'https://hooks.example.com/hiring';
const freePort = () => new Promise((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The receiver refuses the first resultUnlocked once (the log then shows a retry), and accepts everything else.
let refused = false;
const receiver = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const refuse = !refused && Buffer.concat(chunks).toString('utf8').includes('"event":"resultUnlocked"');
    refused ||= refuse;
    response.writeHead(refuse ? 503 : 204).end();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const localHook = `http://127.0.0.1:${receiver.address().port}/hiring`;

const [port, internalPort] = [await freePort(), await freePort()];
const token = randomBytes(24).toString('base64url');
const dataDir = mkdtempSync(join(tmpdir(), 'capture-internal-'));
const service = spawn(process.execPath, ['dist/apps/standalone/src/main.js'], {
  env: {
    ...process.env, PORT: String(port), INTERNAL_PORT: String(internalPort), HOST: '127.0.0.1', INTERNAL_TOKEN: token, DATA_DIR: dataDir,
    APP_URL: 'https://app.example.com', DEMO_WORKSPACE: 'false', SIMULATED_CLOCK: 'true', WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_BACKOFF_MS: '100', LOG_LEVEL: 'warn', QUEUE_PREFIX: `capture-internal-${randomBytes(4).toString('hex')}`,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const stop = async () => {
  service.kill('SIGTERM');
  await new Promise((resolve) => service.once('exit', resolve));
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
};

const base = `http://127.0.0.1:${port}`;
const internalUrl = `http://127.0.0.1:${internalPort}`;
const call = async (url, method, authorization, body) => {
  const response = await fetch(url, { method, headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
};
const internal = (method, path, body) => call(`${internalUrl}${path}`, method, `Bearer ${token}`, body);

try {
  for (let tries = 0; ; tries += 1) {
    const up = await fetch(`${internalUrl}/internal/health`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.ok, () => false);
    if (up) break;
    if (tries > 300) throw new Error('the service did not start');
    await sleep(200);
  }
  const requests = {
    createWorkspace: { name: 'Acme Recruiting', freeAllowance: 0 },
    issueApiKey: { mode: 'sandbox' },
    saveWebhook: { url: localHook, events: ['candidateCreated', 'assessmentStarted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked'] },
    createCustomTest: { name: 'Support desk scenarios', minutes: 20, questionCount: 12 },
    addTestToAssessment: { slug: '' },
    registerCandidate: { invitationUrl: '' },
    completeTest: { scorePercentage: 82.5, speedCompleted: 1260, questionsAnswered: 24, questionsCorrect: 20, questionsIncorrect: 4, questionsTotal: 24, result: 'pass' },
    recoverWebhookDeliveries: { since: '' },
    advanceClock: { advanceSeconds: 3600 },
  };
  const answers = {};
  answers.createWorkspace = await internal('POST', '/internal/workspaces', requests.createWorkspace);
  const workspaceId = answers.createWorkspace.data.id;
  answers.verifyWorkspace = await internal('POST', `/internal/workspaces/${workspaceId}/verify`);
  const first = await internal('POST', `/internal/workspaces/${workspaceId}/api-keys`, { mode: 'live' });
  answers.regenerateApiKey = await internal('POST', `/internal/api-keys/${first.data.id}/regenerate`);
  answers.issueApiKey = await internal('POST', `/internal/workspaces/${workspaceId}/api-keys`, requests.issueApiKey);
  const live = `Bearer ${answers.regenerateApiKey.data.key}:${answers.regenerateApiKey.data.secret}`;
  const sandbox = `Bearer ${answers.issueApiKey.data.key}:${answers.issueApiKey.data.secret}`;
  answers.saveWebhook = await internal('PUT', `/internal/workspaces/${workspaceId}/webhook`, requests.saveWebhook);
  answers.rotateWebhookSecret = await internal('POST', `/internal/workspaces/${workspaceId}/webhook/rotate-secret`);
  answers.getWebhook = await internal('GET', `/internal/workspaces/${workspaceId}/webhook`);
  answers.createCustomTest = await internal('POST', `/internal/workspaces/${workspaceId}/custom-tests`, requests.createCustomTest);

  const assessment = (await call(`${base}/v1/assessments`, 'POST', live, { name: 'Customer support, spring intake', tests: ['numerical-reasoning', 'verbal-reasoning'], deadline: null })).data;
  requests.addTestToAssessment.slug = answers.createCustomTest.data.slug;
  answers.addTestToAssessment = await internal('POST', `/internal/assessments/${assessment.id}/tests`, requests.addTestToAssessment);
  const invited = await call(`${base}/v1/assessments/${assessment.id}/invitations`, 'POST', live, { candidates: [{ email: 'ann.lee@example.com', firstName: 'Ann', surname: 'Lee' }] });
  requests.registerCandidate.invitationUrl = invited.data[0].invitationUrl;
  answers.registerCandidate = await internal('POST', '/internal/registrations', requests.registerCandidate);
  answers.registerCandidateAgain = await internal('POST', '/internal/registrations', requests.registerCandidate);
  const { candidateId } = answers.registerCandidate.data;
  answers.startAssessment = await internal('POST', `/internal/candidates/${candidateId}/assessments/${assessment.id}/start`);
  const progress = `/internal/candidates/${candidateId}/assessments/${assessment.id}/tests`;
  answers.completeTest = await internal('POST', `${progress}/numerical-reasoning/complete`, requests.completeTest);
  await internal('POST', `${progress}/verbal-reasoning/complete`, { ...requests.completeTest, scorePercentage: 71, speedCompleted: 980, result: null });
  answers.completeLastTest = await internal('POST', `${progress}/${requests.addTestToAssessment.slug}/complete`, {
    ...requests.completeTest, scorePercentage: 90, questionsAnswered: 12, questionsCorrect: 11, questionsIncorrect: 1, questionsTotal: 12, result: null,
    scores: { empathy: 0.9, accuracy: 0.85 },
  });
  answers.unlockResult = await internal('POST', `/internal/results/${answers.completeTest.data.resultId}/unlock`);
  answers.getBilling = await internal('GET', `/internal/workspaces/${workspaceId}/billing`);
  answers.listEmails = await internal('GET', '/internal/emails?to=ann.lee@example.com');

  // Every delivery ended (the resultUnlocked after one refused attempt), then the newest two.
  for (let tries = 0; ; tries += 1) {
    const log = await internal('GET', `/internal/workspaces/${workspaceId}/webhook-deliveries`);
    if (log.data[0]?.event === 'resultUnlocked' && log.data.every((row) => row.status === 'succeeded')) break;
    if (tries > 300) throw new Error(`the deliveries did not succeed: ${JSON.stringify(log.data.map((row) => [row.event, row.status]))}`);
    await sleep(100);
  }
  answers.listWebhookDeliveries = await internal('GET', `/internal/workspaces/${workspaceId}/webhook-deliveries?limit=2`);
  const unlocked = answers.listWebhookDeliveries.data[0];
  answers.resendWebhookDelivery = await internal('POST', `/internal/webhook-deliveries/${unlocked.id}/resend`);
  requests.recoverWebhookDeliveries.since = answers.addTestToAssessment.data.createdAt;
  answers.recoverWebhookDeliveries = await internal('POST', `/internal/workspaces/${workspaceId}/webhook/recover`, requests.recoverWebhookDeliveries);

  // A test candidate, registered and deleted (204, no body).
  const trial = (await call(`${base}/v1/assessments`, 'POST', sandbox, { name: 'Trial run', tests: ['numerical-reasoning'] })).data;
  const trialInvited = await call(`${base}/v1/assessments/${trial.id}/invitations`, 'POST', sandbox, { candidates: [{ email: 'trial@example.com' }] });
  const trialCandidate = (await internal('POST', '/internal/registrations', { invitationUrl: trialInvited.data[0].invitationUrl })).data.candidateId;
  await internal('DELETE', `/internal/candidates/${trialCandidate}`);

  const streamId = `candidate-${candidateId}`;
  answers.readStream = await internal('GET', `/internal/streams/${streamId}`);
  answers.readStream.data = answers.readStream.data.slice(0, 2);
  answers.sealLog = await internal('POST', '/internal/audit/seal');
  answers.getLatestSeal = await internal('GET', '/internal/audit/seal');
  const at = answers.unlockResult.data.unlockedAt;
  answers.candidateAsOf = await internal('GET', `/internal/as-of/candidates/${candidateId}?at=${encodeURIComponent(at)}`);
  answers.assessmentAsOf = await internal('GET', `/internal/as-of/assessments/${assessment.id}?at=${encodeURIComponent(at)}`);
  answers.closeAssessment = await internal('POST', `/internal/assessments/${assessment.id}/close`);
  answers.advanceClock = await internal('POST', '/internal/clock', requests.advanceClock);
  answers.getHealth = await internal('GET', '/internal/health');

  const parameters = {
    workspaceId, apiKeyId: answers.regenerateApiKey.data.id, assessmentId: assessment.id, candidateId, slug: 'numerical-reasoning',
    resultId: answers.completeTest.data.resultId, deliveryId: unlocked.id, streamId,
  };
  const examples = JSON.stringify({ answers, requests, parameters }, null, 2).replaceAll(localHook, HOOK_URL);
  writeFileSync('apps/simulator/src/openapi/internal-examples.json', `${examples}\n`);
  process.stdout.write('wrote apps/simulator/src/openapi/internal-examples.json\n');
} finally {
  await stop();
}
