import { jest } from '@jest/globals';
import { api, internal, type HttpAnswer } from './support/client.js';
import { createAssessment, SLUGS } from './support/core-helpers.js';
import { freshDatabase } from './support/processes.js';
import { startService, type RunningService } from './support/service.js';

jest.setTimeout(600_000);

/**
 * Unlocks in one workspace past its free allowance (0 here) all append to the workspace's stream
 * (billing): concurrent ones race there. A lost race is the service's to retry, never the client's
 * 500, and however the races go every candidate is billed exactly once.
 */
const CANDIDATES = 100;
const CLIENTS = 8;
const TESTS = [SLUGS[0], SLUGS[1]] as const;

interface Outcome {
  candidateId: string;
  resultId: string;
  unlock: HttpAnswer;
}
type Prepared = Omit<Outcome, 'unlock'>;

/** A step that must succeed before the unlock: its answer, or an error naming the step and the answer. */
const expectStatus = (step: string, answer: HttpAnswer, status: number): HttpAnswer => {
  if (answer.status !== status) throw new Error(`${step}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer;
};

/** Registered from an invitation, both tests finished: the candidate and their first result. */
const registerAndFinish = async (service: RunningService, invitationUrl: string, assessmentId: string, index: number): Promise<Prepared> => {
  const app = internal(service);
  const candidateId: string = expectStatus(`registration ${index}`, await app.register({ invitationUrl }), 201).body.data.candidateId;
  let resultId = '';
  for (const slug of TESTS) resultId ||= expectStatus(`completion ${index} ${slug}`, await app.complete(candidateId, assessmentId, slug), 201).body.data.resultId;
  return { candidateId, resultId };
};

/** `work(index)` for every index below `count`, CLIENTS at a time; a failure is kept (the others finish), and reported with the rest. */
const byClients = async <T>(count: number, work: (index: number) => Promise<T>): Promise<{ done: T[]; failures: string[] }> => {
  const done: T[] = [];
  const failures: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    for (let index = next++; index < count; index = next++) await work(index).then((value) => done.push(value), (error: unknown) => failures.push(String(error)));
  }));
  return { done, failures };
};

const address = (run: string, index: number) => ({ email: `unlock.${run}.${index}@example.com`, firstName: `Una${index}`, surname: 'Locke' });

/** Each client's whole journey, one candidate after another: invited (public API, live key), registered, two tests finished, one result unlocked. */
const journeys = async (service: RunningService, credential: string, assessmentId: string, run: string): Promise<Outcome[]> => {
  const { done, failures } = await byClients(CANDIDATES, async (index) => {
    const invited = expectStatus(`invitation ${index}`, await api(service, credential).post(`/v1/assessments/${assessmentId}/invitations`, { candidates: [address(run, index)] }), 200);
    const prepared = await registerAndFinish(service, invited.body.data[0].invitationUrl, assessmentId, index);
    return { ...prepared, unlock: await internal(service).unlock(prepared.resultId) };
  });
  expect(failures).toEqual([]);
  return done;
};

/** One workspace (free allowance 0) driven by the journeys; then every unlock 200 and charged, and each candidate billed exactly once, for that result. */
const unlocksAllSucceed = async (service: RunningService): Promise<void> => {
  const app = internal(service);
  const ws = await app.workspace({ freeAllowance: 0, name: 'Concurrent unlocks' });
  const assessment = await createAssessment(service, ws.live, { name: 'Two tests', tests: [...TESTS] });
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const outcomes = await journeys(service, ws.live, assessment.id as string, run);
  expect(outcomes).toHaveLength(CANDIDATES);

  const failed = outcomes.filter(({ unlock }) => unlock.status !== 200).map(({ candidateId, unlock }) => `${candidateId}: ${unlock.status} ${unlock.text.slice(0, 200)}`);
  // The service's own account of a failure (its error lines) goes into the message, not into the verdict.
  const logged = failed.length === 0 ? [] : service.output().split('\n').filter((line) => /"level":(50|60)/.test(line)).map((line) => line.slice(0, 400));
  expect([...failed, ...logged]).toEqual([]);
  expect(outcomes.filter(({ unlock }) => unlock.body?.data?.charged !== true).map(({ candidateId }) => candidateId)).toEqual([]);

  const billing = await app.call('GET', `/internal/workspaces/${ws.id}/billing`);
  expect(billing.status).toBe(200);
  const billed = billing.body.data.billedCandidates as { candidateId: string; resultId: string }[];
  const timesBilled = new Map<string, number>();
  for (const { candidateId } of billed) timesBilled.set(candidateId, (timesBilled.get(candidateId) ?? 0) + 1);
  expect([...timesBilled.entries()].filter(([, times]) => times !== 1)).toEqual([]);
  expect([...timesBilled.keys()].sort()).toEqual(outcomes.map(({ candidateId }) => candidateId).sort());
  const resultOf = new Map(outcomes.map(({ candidateId, resultId }) => [candidateId, resultId]));
  expect(billed.filter(({ candidateId, resultId }) => resultOf.get(candidateId) !== resultId)).toEqual([]);

  // Unlocking again answers 200, not charged, and bills nobody twice.
  const again = await app.unlock(outcomes[0]?.resultId ?? '');
  expect({ status: again.status, charged: again.body?.data?.charged }).toEqual({ status: 200, charged: false });
  expect((await app.call('GET', `/internal/workspaces/${ws.id}/billing`)).body.data.billedCandidates).toHaveLength(CANDIDATES);
};

const journeysTest = (service: () => RunningService) => {
  it(`answers 200 to every unlock of ${CANDIDATES} candidates whose ${CLIENTS} concurrent clients each run the whole journey, and bills each once`, async () => {
    await unlocksAllSucceed(service());
  });
};

describe('concurrent unlocks in one workspace (e2e)', () => {
  describe('embedded store', () => {
    let service: RunningService;

    beforeAll(async () => {
      service = await startService();
    }, 120_000);

    afterAll(async () => {
      await service?.stop();
    });

    journeysTest(() => service);
  });

  describe('PostgreSQL', () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let service: RunningService;

    beforeAll(async () => {
      database = await freshDatabase();
      service = await startService({ EVENT_STORE_URL: database.url, SERVICE_SECRET: `unlocks-${Date.now()}` });
    }, 120_000);

    afterAll(async () => {
      await service?.stop();
      await database?.drop();
    });

    journeysTest(() => service);
  });
});
