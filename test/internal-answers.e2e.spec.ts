import { jest } from '@jest/globals';
import { type HttpAnswer, api, request } from './support/client.js';
import { OPERATIONS, errorsOf, operationOf, validatorAt } from './support/internal-document.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { type RunningService, startService } from './support/service.js';

jest.setTimeout(90_000);

/*
 * Every operation of docs/internal-openapi.json called for real, each success it documents seen.
 * `request` checks every answer against the document as all e2e suites do (a status it does not
 * list, or a body its schema refuses, fails the call); here each JSON answer is also checked against
 * a closed copy of the document, where an object holding a property the document does not describe
 * is refused: the document neither lies about an answer nor leaves part of one out.
 */
describe('internal application: every operation answers as docs/internal-openapi.json describes it', () => {
  let service: RunningService;
  let hooks: WebhookReceiver;
  const seen = new Set<string>();

  beforeAll(async () => {
    [service, hooks] = await Promise.all([startService({ SIMULATED_CLOCK: 'true', WEBHOOK_ALLOW_INSECURE: 'true' }), startWebhookReceiver()]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([service?.stop(), hooks?.close()]);
  });

  /** One internal call: recorded as `operationId status`, and its JSON body checked against the closed document. */
  const call = async (method: string, path: string, body?: unknown): Promise<HttpAnswer> => {
    const answer = await request(`${service.internalUrl}${path}`, { method, headers: { authorization: `Bearer ${service.internalToken}` }, body });
    const found = operationOf(method, new URL(path, service.internalUrl).pathname);
    if (!found) throw new Error(`${method} ${path} is not in docs/internal-openapi.json`);
    seen.add(`${found.id} ${answer.status}`);
    if (found.operation.responses[String(answer.status)]?.content?.['application/json']) {
      const strict = validatorAt(['paths', found.path, method.toLowerCase(), 'responses', String(answer.status), 'content', 'application/json', 'schema'], true);
      if (!strict(answer.body)) throw new Error(`${method} ${path} answered ${answer.status} with what the document does not describe: ${errorsOf(strict)}: ${answer.text.slice(0, 400)}`);
    }
    return answer;
  };
  const ok = async (method: string, path: string, body?: unknown): Promise<any> => {
    const answer = await call(method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body?.data;
  };

  it('walks every operation: a workspace, keys, a webhook, a custom test, a candidate through to an unlock, the logs, the audit views and the clock', async () => {
    const workspace = await ok('POST', '/internal/workspaces', { name: 'Every route', freeAllowance: 0 });
    await ok('POST', `/internal/workspaces/${workspace.id}/verify`);
    const issued = await ok('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'live' });
    const live = await ok('POST', `/internal/api-keys/${issued.id}/regenerate`);
    const sandbox = await ok('POST', `/internal/workspaces/${workspace.id}/api-keys`, { mode: 'sandbox' });
    await ok('PUT', `/internal/workspaces/${workspace.id}/webhook`, { url: hooks.url, events: ['candidateCreated', 'resultUnlocked'] });
    await ok('POST', `/internal/workspaces/${workspace.id}/webhook/rotate-secret`);
    expect(await ok('GET', `/internal/workspaces/${workspace.id}/webhook`)).toMatchObject({ url: hooks.url, enabled: true, disabledReason: null });
    const custom = await ok('POST', `/internal/workspaces/${workspace.id}/custom-tests`, { name: 'Route walk', minutes: 5, questionCount: 3 });

    const client = api(service, `${live.key}:${live.secret}`);
    const assessment = (await client.post('/v1/assessments', { name: 'Walk', tests: ['numerical-reasoning'] })).body.data;
    await ok('POST', `/internal/assessments/${assessment.id}/tests`, { slug: custom.slug });
    const invited = (await client.post(`/v1/assessments/${assessment.id}/invitations`, { candidates: [{ email: 'walker@example.com', firstName: 'Wal' }] })).body.data;
    const registration = { invitationUrl: invited[0].invitationUrl };
    expect((await call('POST', '/internal/registrations', registration)).status).toBe(201);
    const { candidateId } = (await call('POST', '/internal/registrations', registration)).body.data;
    await ok('POST', `/internal/candidates/${candidateId}/assessments/${assessment.id}/start`);
    const scores = { scorePercentage: 70, speedCompleted: 100, questionsAnswered: 3, questionsCorrect: 2, questionsIncorrect: 1, questionsTotal: 3 };
    const finished = await ok('POST', `/internal/candidates/${candidateId}/assessments/${assessment.id}/tests/numerical-reasoning/complete`, scores);
    await ok('POST', `/internal/candidates/${candidateId}/assessments/${assessment.id}/tests/${custom.slug}/complete`, { ...scores, result: null, scores: { a: 1 } });
    const unlocked = await ok('POST', `/internal/results/${finished.resultId}/unlock`);
    expect(unlocked).toMatchObject({ charged: true });
    expect((await ok('GET', `/internal/workspaces/${workspace.id}/billing`)).billedCandidates).toHaveLength(1);
    expect(await ok('GET', '/internal/emails?to=walker@example.com')).toHaveLength(1);

    const tryOut = api(service, `${sandbox.key}:${sandbox.secret}`);
    const trial = (await tryOut.post('/v1/assessments', { name: 'Trial', tests: ['numerical-reasoning'] })).body.data;
    const trialInvited = (await tryOut.post(`/v1/assessments/${trial.id}/invitations`, { candidates: [{ email: 'trial-walker@example.com' }] })).body.data;
    const trialCandidate = (await ok('POST', '/internal/registrations', { invitationUrl: trialInvited[0].invitationUrl })).candidateId;
    expect((await call('DELETE', `/internal/candidates/${trialCandidate}`)).status).toBe(204);

    const deliveries = await eventually(() => ok('GET', `/internal/workspaces/${workspace.id}/webhook-deliveries?limit=1`), (rows: any[]) => rows[0]?.status === 'succeeded', 15_000, 'a delivery');
    await ok('POST', `/internal/webhook-deliveries/${deliveries[0].id}/resend`);
    expect(await ok('POST', `/internal/workspaces/${workspace.id}/webhook/recover`, { since: assessment.createdAt })).toMatchObject({ count: expect.any(Number) });

    expect((await ok('GET', `/internal/streams/candidate-${candidateId}`))[0]).toMatchObject({ type: 'CandidateCreated', revision: 0 });
    await ok('POST', '/internal/audit/seal');
    await ok('GET', '/internal/audit/seal');
    expect((await call('GET', '/internal/audit/export')).status).toBe(200);
    const at = encodeURIComponent(unlocked.unlockedAt);
    expect(await ok('GET', `/internal/as-of/candidates/${candidateId}?at=${at}`)).toMatchObject({ id: candidateId });
    expect(await ok('GET', `/internal/as-of/assessments/${assessment.id}?at=${at}&mode=sandbox`)).toMatchObject({ candidateCount: 0 });
    expect(await ok('POST', `/internal/assessments/${assessment.id}/close`)).toMatchObject({ status: 'archived' });
    await ok('POST', '/internal/clock', { advanceSeconds: 60 });
    expect(await ok('GET', '/internal/health')).toMatchObject({ status: 'ok' });

    const documented = OPERATIONS.flatMap(({ id, operation }) => Object.keys(operation.responses).filter((status) => status.startsWith('2')).map((status) => `${id} ${status}`));
    expect(documented.filter((success) => !seen.has(success))).toEqual([]);
  });

  it('answers the refusals each operation documents in the error shape, with the codes listed for the status', async () => {
    const refusals: [string, string, unknown, number][] = [
      ['POST', '/internal/workspaces', { name: '' }, 422],
      ['GET', '/internal/workspaces/ws_unknown/webhook', undefined, 404],
      ['POST', '/internal/candidates/cand_unknown/assessments/asm_unknown/start', undefined, 404],
      ['POST', '/internal/results/res_unknown/unlock', undefined, 404],
      ['GET', '/internal/workspaces/ws_unknown/webhook-deliveries?limit=0', undefined, 400],
      ['GET', '/internal/as-of/candidates/cand_unknown', undefined, 400],
      ['POST', '/internal/clock', { advanceSeconds: 0 }, 422],
    ];
    for (const [method, path, body, status] of refusals) {
      const answer = await call(method, path, body);
      expect({ method, path, status: answer.status, shape: Object.keys(answer.body.error ?? {}).sort() }).toEqual({ method, path, status, shape: ['code', 'message'] });
    }
  });
});
