import { jest } from '@jest/globals';
import { type HttpAnswer, api, internal, request } from './support/client.js';
import { type Workspace, createAssessment, expectError } from './support/core-helpers.js';
import { type RunningService, startService } from './support/service.js';

/*
 * Limits on the work of one request (docs/operations.md). One key of an unverified workspace sends
 * bodies and query strings that ask for much work, several at once; meanwhile another workspace's
 * `GET /v1/me` is timed: every hostile request is refused with the documented code, and the other
 * workspace's requests stay fast, because nothing the service does for one request is superlinear,
 * or unbounded, in what that request sends.
 */
jest.setTimeout(120_000);

/** The other workspace's requests must stay fast: 2 ms unloaded; generous for a loaded CI machine. */
const FAST_MS = 500;
const PARALLEL = 4;
const PROBE_PAUSE_MS = 40;

let service: RunningService;
let app: ReturnType<typeof internal>;
let attacker: Workspace;
let victim: Workspace;

beforeAll(async () => {
  service = await startService();
  app = internal(service);
  attacker = await app.workspace({ name: 'Unverified', verified: false });
  victim = await app.workspace({ name: 'Bystander' });
}, 90_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
});

/** A fresh key of the bystander, so that its probes stay far under the rate limit. */
const bystanderKey = async (): Promise<string> => {
  const issued = (await app.call('POST', `/internal/workspaces/${victim.id}/api-keys`, { mode: 'live' })).body.data;
  return `${issued.key}:${issued.secret}`;
};

interface Probe {
  ms: number;
  /** 200, another status, or why no answer came (a blocked service lets the connection time out). */
  outcome: number | string;
}

/**
 * Sends `hostile` once, then PARALLEL times at once while the bystander reads `GET /v1/me` one
 * request after the other; answers the hostile answers and the bystander's requests, timed.
 */
const whileTimingBystander = async (hostile: () => Promise<HttpAnswer>): Promise<{ answers: HttpAnswer[]; probes: Probe[] }> => {
  const bystander = api(service, await bystanderKey());
  expect((await bystander.get('/v1/me')).status).toBe(200);
  // Once before the timed round: a first run of a code path is slower (JIT) whatever its input.
  await hostile();
  const probes: Probe[] = [];
  let hostileDone = false;
  const probing = (async () => {
    // At least a few probes, all while the hostile requests are in flight or just answered.
    while (!hostileDone || probes.length < 3) {
      const started = performance.now();
      const outcome = await bystander.get('/v1/me').then((answer) => answer.status, (error: unknown) => String((error as Error).cause ?? error));
      probes.push({ ms: performance.now() - started, outcome });
      await new Promise((resolve) => setTimeout(resolve, PROBE_PAUSE_MS));
    }
  })();
  const answers = await Promise.all(Array.from({ length: PARALLEL }, () => hostile()));
  hostileDone = true;
  await probing;
  return { answers, probes };
};

const expectBystanderFast = (probes: Probe[]): void => {
  const slowest = Math.max(...probes.map((probe) => probe.ms));
  expect({ slowest: slowest < FAST_MS ? 'fast' : `${Math.round(slowest)} ms`, outcomes: [...new Set(probes.map((probe) => probe.outcome))] })
    .toEqual({ slowest: 'fast', outcomes: [200] });
};

describe('one request cannot block the service for other workspaces', () => {
  it('100 000 distinct slugs (0.9 MB) from a sandbox key of an unverified workspace: 422 validation_failed, and the others stay fast', async () => {
    const tests = Array.from({ length: 100_000 }, (_, index) => `s${String(index).padStart(5, '0')}`);
    // Serialised once: the timed round must not wait on this process's own JSON.stringify.
    const raw = JSON.stringify({ name: 'Everything', tests });
    expect(raw.length).toBeGreaterThan(900_000);
    expect(raw.length).toBeLessThan(1024 * 1024);
    const { answers, probes } = await whileTimingBystander(() =>
      api(service, attacker.sandbox).raw('/v1/assessments', { method: 'POST', headers: { 'content-type': 'application/json' }, raw }));
    for (const answer of answers) expectError(answer, 422, 'validation_failed');
    expect(answers[0]?.body.error.message).toContain('tests');
    expectBystanderFast(probes);
    // What an integrator sends by mistake is still judged by the route's own rule.
    const eleven = await api(service, attacker.sandbox).post('/v1/assessments', { name: 'Eleven', tests: tests.slice(0, 11) });
    expectError(eleven, 422, 'validation_failed');
    expect(eleven.body.error.message).toBe('tests must be a list of 1 to 10 test slugs');
  });

  it('a list of 60 000 entries on the internal application: 422 validation_failed, and the others stay fast', async () => {
    const raw = JSON.stringify({ url: 'https://hooks.example.com/work-limits', events: Array.from({ length: 60_000 }, () => 'testCompleted') });
    expect(raw.length).toBeLessThan(1024 * 1024);
    const { answers, probes } = await whileTimingBystander(() => request(`${service.internalUrl}/internal/workspaces/${attacker.id}/webhook`, {
      method: 'PUT', headers: { authorization: `Bearer ${service.internalToken}`, 'content-type': 'application/json' }, raw,
    }));
    for (const answer of answers) expectError(answer, 422, 'validation_failed');
    expect(answers[0]?.body.error.message).toContain('events has more than 10000 entries');
    expectBystanderFast(probes);
    // Nothing was saved.
    expectError(await app.call('GET', `/internal/workspaces/${attacker.id}/webhook`), 404, 'not_found');
  });

  it('an invitation of 10 000 people is the contract\'s too_many_candidates, and the others stay fast; past the limits on one body it is validation_failed', async () => {
    const assessment = await createAssessment(service, victim.live);
    const people = (count: number) => JSON.stringify({ candidates: Array.from({ length: count }, (_, index) => ({ email: `p${index}@example.com`, firstName: 'Ann', surname: 'Lee' })) });
    const raw = people(10_000);
    const { answers, probes } = await whileTimingBystander(() =>
      api(service, victim.live).raw(`/v1/assessments/${assessment.id}/invitations`, { method: 'POST', headers: { 'content-type': 'application/json' }, raw }));
    for (const answer of answers) expectError(answer, 422, 'too_many_candidates');
    expectBystanderFast(probes);
    const beyond = await api(service, victim.live).raw(`/v1/assessments/${assessment.id}/invitations`, { method: 'POST', headers: { 'content-type': 'application/json' }, raw: people(10_001) });
    expectError(beyond, 422, 'validation_failed');
    expect(beyond.body.error.message).toContain('candidates has more than 10000 entries');
    // Nobody was invited.
    expect((await api(service, victim.live).get(`/v1/assessments/${assessment.id}`)).body.data.candidateCount).toBe(0);
  });

  it('a body nested 100 000 levels deep: 400 invalid_json, and the others stay fast', async () => {
    const raw = `{"name":"Deep","tests":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const { answers, probes } = await whileTimingBystander(() =>
      api(service, attacker.sandbox).raw('/v1/assessments', { method: 'POST', headers: { 'content-type': 'application/json' }, raw }));
    for (const answer of answers) expectError(answer, 400, 'invalid_json');
    expectBystanderFast(probes);
  });

  it('a query string of 2 000 parameters: 400 invalid_parameter, and the others stay fast', async () => {
    const query = Array.from({ length: 2_000 }, () => 'x=1').join('&');
    const { answers, probes } = await whileTimingBystander(() => api(service, attacker.sandbox).get(`/v1/assessments?${query}`));
    for (const answer of answers) expectError(answer, 400, 'invalid_parameter');
    expect(answers[0]?.body.error.message).toContain('more than 100 parameters');
    expectBystanderFast(probes);
    // The same limit on the internal application, and on the original endpoint in its own shape.
    // (fetch, not the checked client: the documents list the limits' refusals only where a route has rules of its own)
    const internalAnswer = await fetch(`${service.internalUrl}/internal/workspaces/${attacker.id}/billing?${query}`, { headers: { authorization: `Bearer ${service.internalToken}` } });
    expect({ status: internalAnswer.status, code: ((await internalAnswer.json()) as { error: { code: string } }).error.code }).toEqual({ status: 400, code: 'invalid_parameter' });
    const legacy = await fetch(`${service.baseUrl}/candidates?${query}`, { headers: { authorization: `Bearer ${attacker.sandbox}` } });
    expect({ status: legacy.status, body: await legacy.json() }).toEqual({ status: 400, body: { status: '400', code: expect.stringContaining('more than 100 parameters') } });
    // Up to the limits, unknown parameters are still ignored.
    const hundred = Array.from({ length: 99 }, (_, index) => `p${index}=${index}`).join('&');
    expect((await api(service, attacker.sandbox).get(`/v1/assessments?limit=5&${hundred}`)).status).toBe(200);
  });

  it('a query string of 12 000 characters: 400 invalid_parameter; one over 16 KiB never reaches a route (431)', async () => {
    const { answers, probes } = await whileTimingBystander(() => api(service, attacker.sandbox).get(`/v1/assessments?status=${'a'.repeat(12_000)}`));
    for (const answer of answers) expectError(answer, 400, 'invalid_parameter');
    expect(answers[0]?.body.error.message).toContain('longer than 8192 characters');
    expectBystanderFast(probes);
    const huge = await fetch(`${service.baseUrl}/v1/assessments?status=${'a'.repeat(20_000)}`, { headers: { authorization: `Bearer ${attacker.sandbox}` } });
    expect({ status: huge.status, code: ((await huge.json()) as { error: { code: string } }).error.code }).toEqual({ status: 431, code: 'request_too_large' });
  });
});
