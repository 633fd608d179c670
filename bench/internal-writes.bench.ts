import { invite, newWorkspace, people } from './invitation-growth.bench.js';
import { createAssessment } from './invitations.bench.js';
import { SCALE, logger, progress, randomSuffix, round } from './support/log.js';
import { type Service, startStandalone } from './support/processes.js';
import type { BenchRow } from './support/results.js';

/** People played through the internal application: three writes each (register, finish the test, unlock). */
const PEOPLE = Math.max(20, Math.round(400 * SCALE));
/** Public invitations of one address, one at a time, measured in the same process: the baseline. */
const INVITATIONS = Math.max(20, Math.round(100 * SCALE));

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const internalWrite = async (service: Service, path: string, body?: unknown): Promise<{ ms: number; data: Record<string, unknown> }> => {
  const started = performance.now();
  const response = await fetch(`${service.internalUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.internalToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status >= 300) throw new Error(`POST ${path} -> ${response.status} ${text.slice(0, 300)}`);
  return { ms, data: (JSON.parse(text) as { data: Record<string, unknown> }).data };
};

/**
 * Internal-application writes one after another, as the demo staff and the simulator make them
 * (register through the invitation link, finish the assessment's one test, unlock the result),
 * against public invitations of one address one at a time in the same process (issue 40: "as fast
 * as public ones, or the reason written down"). Standalone service on the embedded store.
 */
export async function benchInternalWrites(): Promise<{ rows: BenchRow[]; details: string[] }> {
  const service = await startStandalone();
  try {
    const run = randomSuffix();
    const workspace = await newWorkspace(service, Math.ceil((PEOPLE / 100 + INVITATIONS) / 60) + 3);
    const firstKey = workspace.credentials.next()?.slice('Bearer '.length) ?? '';
    const assessmentId = await createAssessment(service, firstKey);
    // The links, 100 people a request; the invitations of one address come after, one at a time.
    const links: string[] = [];
    for (let from = 0; from < PEOPLE; from += 100) {
      const authorization = workspace.credentials.next() ?? '';
      const response = await fetch(`${service.baseUrl}/v1/assessments/${assessmentId}/invitations`, {
        method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ candidates: people(run, from, Math.min(100, PEOPLE - from)) }),
      });
      const body = (await response.json()) as { data: { invitationUrl: string | null }[] };
      links.push(...body.data.map((entry) => entry.invitationUrl ?? ''));
    }
    const invitations: number[] = [];
    for (let index = 0; index < INVITATIONS; index += 1) invitations.push(await invite(service, workspace, assessmentId, people(run, 1_000_000 + index, 1)));

    const writes = { register: [] as number[], complete: [] as number[], unlock: [] as number[] };
    const report = progress('internal-application writes', 'writes', 3 * PEOPLE);
    const started = performance.now();
    for (const [index, invitationUrl] of links.entries()) {
      const registered = await internalWrite(service, '/internal/registrations', { invitationUrl });
      writes.register.push(registered.ms);
      const candidateId = String(registered.data['candidateId']);
      await internalWrite(service, `/internal/candidates/${candidateId}/assessments/${assessmentId}/start`);
      const completed = await internalWrite(service, `/internal/candidates/${candidateId}/assessments/${assessmentId}/tests/numerical-reasoning/complete`, {
        scorePercentage: 70, speedCompleted: 600, questionsAnswered: 20, questionsCorrect: 14, questionsIncorrect: 6, questionsTotal: 20,
      });
      writes.complete.push(completed.ms);
      writes.unlock.push((await internalWrite(service, `/internal/results/${String(completed.data['resultId'])}/unlock`)).ms);
      report(3 * (index + 1));
    }
    report(3 * links.length, true);
    const seconds = (performance.now() - started) / 1000;
    const all = [...writes.register, ...writes.complete, ...writes.unlock];
    const p50 = round(median(all), 1);
    const invitationP50 = round(median(invitations), 1);
    logger.info({ p50, invitationP50 }, 'internal-application writes measured');
    return {
      rows: [{
        name: `internal-application writes one at a time (register, finish a test, unlock), p50, embedded (target: as fast as a public invitation)`,
        measured: `${p50} ms`,
        baseline: `${invitationP50} ms (a public invitation of 1 address, one at a time)`,
        ratio: p50 > 0 ? invitationP50 / p50 : null,
      }],
      details: [
        `${all.length} internal-application writes one after another (${PEOPLE} people: register, finish the one test, unlock; starting each assessment not counted) in ${seconds.toFixed(1)}s: ` +
          `p50 register ${round(median(writes.register), 1)} ms, finish a test ${round(median(writes.complete), 1)} ms, unlock ${round(median(writes.unlock), 1)} ms, all ${p50} ms`,
        `${INVITATIONS} public invitations of 1 address one at a time in the same process: p50 ${invitationP50} ms`,
      ],
    };
  } finally {
    await service.stop();
  }
}
