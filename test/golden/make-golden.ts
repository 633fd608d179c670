/**
 * Writes the golden database of this release: `npm run build:all && node dist/test/golden/make-golden.js`.
 * It starts the compiled service on a fresh PostgreSQL database, makes a small world through the
 * internal application and the public API (every kind of event, both modes, a deletion), records the
 * answers, stops the service and dumps the database. Run once per release; never change or remove
 * an earlier release's folder (docs/operations.md, "Upgrades").
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { request } from '../support/client.js';
import { freshDatabase } from '../support/processes.js';
import { startService } from '../support/service.js';
import { GOLDEN_DIR, type GoldenAnswer, type GoldenManifest, releaseVersion } from './golden-world.js';

const release = releaseVersion();
const folder = join(GOLDEN_DIR, release);
if (existsSync(folder)) {
  process.stderr.write(`${folder} exists: a release's golden database is never made again\n`);
  process.exit(1);
}

const serviceSecret = `golden-${release}-service-secret-${Math.random().toString(36).slice(2)}`;
const database = await freshDatabase();
// Links in answers are built on APP_URL: a fixed one, so that they do not depend on the ports of a run.
const appUrl = 'https://app.golden.example';
const service = await startService({ EVENT_STORE_URL: database.url, SERVICE_SECRET: serviceSecret, APP_URL: appUrl, QUEUE_PREFIX: `golden-${Date.now().toString(36)}` });
try {
  const token = { authorization: `Bearer ${service.internalToken}` };
  const internal = async (method: string, path: string, body?: unknown) => {
    const answer = await request(`${service.internalUrl}${path}`, { method, headers: token, body });
    if (answer.status >= 400) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body?.data;
  };
  const workspace = await internal('POST', '/internal/workspaces', { name: 'Golden Ltd', freeAllowance: 1 });
  await internal('POST', `/internal/workspaces/${workspace.id}/verify`);
  const liveKey = await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' });
  const sandboxKey = await internal('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'sandbox' });
  const credentials = { live: `${liveKey.key}:${liveKey.secret}`, sandbox: `${sandboxKey.key}:${sandboxKey.secret}` };
  const webhook = await internal('PUT', `/internal/workspaces/${workspace.id}/webhook`, {
    url: 'https://hooks.golden.example/in', events: ['candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked'],
  });
  const custom = await internal('POST', `/internal/workspaces/${workspace.id}/custom-tests`, { name: 'Golden custom test', minutes: 20, questionCount: 12 });

  const api = async (mode: 'live' | 'sandbox', method: string, path: string, body?: unknown) => {
    const answer = await request(`${service.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${credentials[mode]}` }, body });
    if (answer.status >= 400) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body;
  };
  const role = (await api('live', 'POST', '/v1/assessments', { name: 'Golden role', tests: ['numerical-reasoning', 'verbal-reasoning'] })).data;
  await internal('POST', `/internal/assessments/${role.id}/tests`, { slug: custom.slug });
  const closed = (await api('live', 'POST', '/v1/assessments', { name: 'Golden closed role', tests: ['abstract-reasoning'] })).data;
  const people = [
    { email: 'ada.lovelace@golden.example', firstName: 'Ada', surname: 'Lovelace' },
    { email: 'grace.hopper@golden.example', firstName: 'Grace', surname: 'Hopper' },
    { email: 'alan.turing@golden.example', firstName: 'Alan', surname: 'Turing' },
  ];
  const invited = (await api('live', 'POST', `/v1/assessments/${role.id}/invitations`, { candidates: people })).data as { invitationUrl: string }[];
  const finish = async (invitationUrl: string, assessmentId: string, slugs: string[], score: number) => {
    const { candidateId } = await internal('POST', '/internal/registrations', { invitationUrl });
    await internal('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/start`);
    const results: string[] = [];
    for (const slug of slugs) {
      const done = await internal('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/tests/${slug}/complete`, {
        scorePercentage: score, speedCompleted: 300, questionsAnswered: 12, questionsCorrect: 9, questionsIncorrect: 3, questionsTotal: 12,
      });
      results.push(done.resultId);
    }
    return { candidateId, results };
  };
  const slugs = ['numerical-reasoning', 'verbal-reasoning', custom.slug];
  const ada = await finish(invited[0]!.invitationUrl, role.id, slugs, 81);
  const grace = await finish(invited[1]!.invitationUrl, role.id, slugs.slice(0, 1), 64);
  // One result unlocked within the free allowance, one billed; one left locked.
  await internal('POST', `/internal/results/${ada.results[0]}/unlock`);
  await internal('POST', `/internal/results/${grace.results[0]}/unlock`);
  await internal('POST', `/internal/assessments/${closed.id}/close`);

  const trial = (await api('sandbox', 'POST', '/v1/assessments', { name: 'Golden trial', tests: ['critical-thinking'] })).data;
  const trialists = (await api('sandbox', 'POST', `/v1/assessments/${trial.id}/invitations`, {
    candidates: [{ email: 'sam.sandbox@golden.example', firstName: 'Sam' }, { email: 'dee.deleted@golden.example', firstName: 'Dee' }],
  })).data as { invitationUrl: string }[];
  await finish(trialists[0]!.invitationUrl, trial.id, ['critical-thinking'], 70);
  const deleted = await finish(trialists[1]!.invitationUrl, trial.id, ['critical-thinking'], 55);
  const removed = await request(`${service.internalUrl}/internal/candidates/${deleted.candidateId}`, { method: 'DELETE', headers: token });
  if (removed.status !== 204) throw new Error(`delete: ${removed.status}`);

  // The questions, and the answers this release gives.
  const questions: Omit<GoldenAnswer, 'status' | 'body'>[] = [];
  const ask = (app: GoldenAnswer['app'], credential: GoldenAnswer['credential'], path: string) => questions.push({ app, method: 'GET', path, credential });
  for (const mode of ['live', 'sandbox'] as const) {
    ask('api', mode, '/v1/me');
    ask('api', mode, '/v1/assessments?limit=100');
    ask('api', mode, '/v1/candidates?limit=100');
    ask('api', mode, '/v1/results?limit=100');
    ask('api', mode, '/candidates');
  }
  ask('api', 'live', '/v1/tests');
  for (const id of [role.id, closed.id]) ask('api', 'live', `/v1/assessments/${id}`);
  ask('api', 'sandbox', `/v1/assessments/${trial.id}`);
  ask('api', 'live', `/v1/completions?assessmentId=${role.id}`);
  for (const id of [ada.candidateId, grace.candidateId]) ask('api', 'live', `/v1/candidates/${id}`);
  ask('api', 'sandbox', `/v1/candidates/${deleted.candidateId}`);
  ask('internal', 'internal', `/internal/workspaces/${workspace.id}/webhook`);
  ask('internal', 'internal', `/internal/workspaces/${workspace.id}/billing`);
  ask('internal', 'internal', `/internal/streams/assessment-${role.id}`);
  const answers: GoldenAnswer[] = [];
  for (const question of questions) {
    const base = question.app === 'api' ? service.baseUrl : service.internalUrl;
    const authorization = question.credential === 'internal' ? `Bearer ${service.internalToken}` : `Bearer ${credentials[question.credential]}`;
    const answer = await request(`${base}${question.path}`, { headers: { authorization } });
    answers.push({ ...question, status: answer.status, body: answer.body });
  }

  mkdirSync(folder, { recursive: true });
  const manifest: GoldenManifest = {
    release, madeAt: new Date().toISOString(), appUrl, serviceSecret, internalToken: service.internalToken, workspaceId: workspace.id, credentials,
    webhookSecret: webhook.secret,
    // The sandbox allowance is counted over the last 30 days of the time of the question.
    volatile: ['data.sandbox.remaining', 'data.sandbox.resetsAt', 'data.sandbox.windowEndsAt'],
    answers,
  };
  await service.stop();
  const dump = execFileSync('pg_dump', ['--no-owner', '--no-privileges', '--format=plain', database.url], { maxBuffer: 256 * 1024 * 1024 });
  writeFileSync(join(folder, 'postgres.sql.gz'), gzipSync(dump, { level: 9 }));
  writeFileSync(join(folder, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(`golden database of ${release} written to ${folder} (${answers.length} answers, dump ${dump.length} bytes)\n`);
} finally {
  await service.stop().catch(() => undefined);
  await database.drop();
}
