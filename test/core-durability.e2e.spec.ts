import { jest } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, internal } from './support/client.js';
import { type Workspace, createAssessment, expectError, invite } from './support/core-helpers.js';
import { spawnService } from './support/core-process.js';
import { type RunningService, removeDataDir, startService } from './support/service.js';

// Many requests per test on a shared, often loaded machine: the 5 s default is too tight.
jest.setTimeout(30_000);

const SCORES = { scorePercentage: 60, speedCompleted: 100, questionsAnswered: 10, questionsCorrect: 6, questionsIncorrect: 4, questionsTotal: 10 };

describe('durability: kill -9 and restart, one service per DATA_DIR', () => {
  let dataDir: string;
  let service: RunningService;
  let app: ReturnType<typeof internal>;
  let ws: Workspace;
  let assessment: Record<string, any>;
  let candidateId: string;
  let resultId: string;

  // The same links base before and after a restart (the internal port changes).
  const serviceEnv = () => ({ APP_URL: 'http://app.example.test' });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'core-durability-'));
    service = await startService(serviceEnv(), { dataDir });
    app = internal(service);
    ws = await app.workspace({ name: 'Durable' });
    assessment = await createAssessment(service, ws.live, { tests: ['numerical-reasoning', 'verbal-reasoning'] });
    const invited = await invite(service, ws.live, assessment.id, [{ email: 'durable.one@example.com', firstName: 'Dura' }]);
    candidateId = (await app.register({ invitationUrl: invited.body.data[0].invitationUrl })).body.data.candidateId;
    resultId = (await app.complete(candidateId, assessment.id, 'numerical-reasoning', SCORES)).body.data.resultId;
  }, 60_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
    if (dataDir) await removeDataDir(dataDir, serviceEnv());
  });

  describe('crash and restart', () => {
    it('after kill -9 and a restart on the same DATA_DIR every acknowledged write is still there', async () => {
      // Writes of every kind, each acknowledged.
      const custom = (await app.call('POST', `/internal/workspaces/${ws.id}/custom-tests`, { name: 'Durable test', minutes: 5, questionCount: 3 })).body.data;
      expect((await app.call('POST', `/internal/assessments/${assessment.id}/tests`, { slug: custom.slug })).status).toBe(200);
      expect((await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: 'https://hooks.example.com/durable', events: ['testCompleted'] })).status).toBe(200);
      expect((await app.unlock(resultId)).status).toBe(200);
      const closed = await createAssessment(service, ws.sandbox, { name: 'Closed before crash' });
      expect((await app.close(closed.id)).status).toBe(200);
      const idem = await invite(service, ws.live, assessment.id, [{ email: 'durable.idem@example.com' }], { 'Idempotency-Key': 'durable-key' });
      expect(idem.status).toBe(200);
      const tester = await invite(service, ws.sandbox, assessment.id, [{ email: 'durable.tester@example.com' }]);
      const testerId = (await app.register({ invitationUrl: tester.body.data[0].invitationUrl })).body.data.candidateId;
      expect((await app.start(testerId, assessment.id)).status).toBe(200);
      const regenerated = (await app.call('POST', `/internal/api-keys/${ws.sandboxKey.id}/regenerate`)).body.data;
      const sandbox = `${regenerated.key}:${regenerated.secret}`;
      const firstPage = await api(service, ws.live).get('/v1/assessments?limit=1');
      const cursor: string = firstPage.body.meta.nextCursor;
      expect(typeof cursor).toBe('string');

      const reads = async (target: RunningService, liveCredential: string, sandboxCredential: string) => {
        const liveApi = api(target, liveCredential);
        const sandboxApi = api(target, sandboxCredential);
        const tool = internal(target);
        return {
          me: (await liveApi.get('/v1/me')).body,
          assessments: (await liveApi.get('/v1/assessments?limit=100')).body,
          assessment: (await liveApi.get(`/v1/assessments/${assessment.id}`)).body,
          candidates: (await liveApi.get('/v1/candidates?limit=100')).body,
          testCandidates: (await sandboxApi.get('/v1/candidates?limit=100')).body,
          results: (await liveApi.get('/v1/results?limit=100')).body,
          completions: (await liveApi.get('/v1/completions')).body,
          legacy: (await liveApi.get('/candidates')).body,
          billing: (await tool.call('GET', `/internal/workspaces/${ws.id}/billing`)).body,
          webhook: (await tool.call('GET', `/internal/workspaces/${ws.id}/webhook`)).body,
          assessmentStream: (await tool.call('GET', `/internal/streams/assessment-${assessment.id}`)).body,
          workspaceStream: (await tool.call('GET', `/internal/streams/workspace-${ws.id}`)).body,
          emails: (await tool.call('GET', '/internal/emails?to=durable.idem@example.com')).body,
        };
      };
      // Acknowledged in a burst right before the crash: these must all survive.
      const burstKey = (await app.call('POST', `/internal/workspaces/${ws.id}/api-keys`, { mode: 'live' })).body.data;
      const pending = Array.from({ length: 24 }, (_, index) => api(service, `${burstKey.key}:${burstKey.secret}`).post('/v1/assessments', { name: `Burst ${index}`, tests: ['english-b2'] }));
      const acknowledged: string[] = [];
      await new Promise<void>((resolveBurst) => {
        let settled = 0;
        for (const call of pending) {
          void call.then((answer) => {
            if (answer.status === 201) acknowledged.push(answer.body.data.id);
          }, () => undefined).finally(() => {
            settled += 1;
            if (settled === 12 || settled === pending.length) resolveBurst();
          });
        }
      });
      const before = await reads(service, ws.live, sandbox);
      // Crash, with half of the burst perhaps still in flight.
      const killedPid = service.process.pid;
      service.process.kill('SIGKILL');
      await new Promise((resolveExit) => (service.process.exitCode !== null || service.process.signalCode !== null ? resolveExit(null) : service.process.once('exit', resolveExit)));
      await Promise.allSettled(pending);
      expect(acknowledged.length).toBeGreaterThanOrEqual(12);

      service = await startService(serviceEnv(), { dataDir });
      app = internal(service);
      expect(service.process.pid).not.toBe(killedPid);
      const after = await reads(service, ws.live, sandbox);
      // Rows written by the burst after the snapshot may add to lists; everything seen before is still there, unchanged.
      const ids = (list: { data: { id: string }[] }) => list.data.map((item) => item.id);
      expect(ids(after.assessments)).toEqual(expect.arrayContaining(ids(before.assessments)));
      for (const id of acknowledged) expect(ids(after.assessments)).toContain(id);
      const { assessments: _a, ...restAfter } = after;
      const { assessments: _b, ...restBefore } = before;
      expect(restAfter).toEqual(restBefore);
      for (const id of acknowledged) expect((await api(service, ws.live).get(`/v1/assessments/${id}`)).status).toBe(200);
      // Credentials, the old key refused, cursors and idempotency records survive too.
      expectError(await api(service, ws.sandbox).get('/v1/me'), 401, 'unauthorized');
      const secondPage = await api(service, ws.live).get(`/v1/assessments?limit=1&cursor=${encodeURIComponent(cursor)}`);
      expect(secondPage.status).toBe(200);
      const replay = await invite(service, ws.live, assessment.id, [{ email: 'durable.idem@example.com' }], { 'Idempotency-Key': 'durable-key' });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(idem.body);
      // And it keeps writing: nothing is stuck after the crash.
      const afterCrash = await createAssessment(service, ws.live, { name: 'After the crash' });
      expect((await api(service, sandbox).get(`/v1/assessments/${afterCrash.id}`)).status).toBe(200);
      expect((await app.complete(testerId, assessment.id, 'numerical-reasoning', SCORES)).status).toBe(201);
    }, 90_000);

    it('refuses a second service on the same DATA_DIR with a clear message and exit code 1', async () => {
      const second = await spawnService({ DATA_DIR: dataDir });
      const code = await Promise.race([second.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000))]);
      if (code === 'timeout') await second.kill();
      expect(code).toBe(1);
      expect(second.stderr()).toContain(`DATA_DIR ${dataDir} is in use by another process (pid ${service.process.pid})`);
      expect(second.stderr()).not.toMatch(/\n\s+at /);
      expect(second.stdout()).not.toContain('running');
      // It never listened, and the first service is untouched.
      await expect(fetch(`${second.baseUrl}/v1/me`)).rejects.toThrow();
      expect((await api(service, ws.live).get(`/v1/assessments/${assessment.id}`)).status).toBe(200);
      expect((await app.call('GET', `/internal/streams/assessment-${assessment.id}`)).status).toBe(200);
    }, 40_000);
  });
});
