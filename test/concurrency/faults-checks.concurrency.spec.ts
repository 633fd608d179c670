import { checkDeletionsEndInvitations } from './support/checks-deletion.js';
import { checkIdempotency } from './support/checks-idempotency.js';
import { checkProcessLogs } from './support/checks-process-logs.js';
import { FAULT_GRACE_MS, FaultLog } from './support/faults.js';
import { Findings } from './support/findings.js';
import { Knowledge, type IdempotentUse } from './support/knowledge.js';
import type { LoggedEvent } from './support/log.js';

/* The faults mode's own checks and tolerances, fed what breaks them and what they must let pass. */

let position = 0n;
const event = (type: string, data: Record<string, unknown>): LoggedEvent =>
  ({ position: ++position, id: `ev-${position}`, streamId: `assessment-${String(data.assessmentId)}`, revision: 0, type, data: { workspaceId: 'ws', ...data }, metadata: {} });
const invariants = (check: (findings: Findings) => void): string[] => {
  const findings = new Findings();
  check(findings);
  return [...new Set(findings.items.map((finding) => finding.invariant))];
};

describe('the faults mode of the concurrency tier', () => {
  it('tolerates a failed request only when it met a fault or its grace', () => {
    const log = new FaultLog();
    log.windows.push({ kind: 'kill-api', detail: '', startedAt: 10_000, endedAt: 12_000, atOperation: 1 });
    expect(log.covers(9_000, 10_500)).toBe(true);
    expect(log.covers(12_000 + FAULT_GRACE_MS, 12_000 + FAULT_GRACE_MS + 10)).toBe(true);
    expect(log.covers(12_001 + FAULT_GRACE_MS, 20_000 + FAULT_GRACE_MS)).toBe(false);
    expect(log.covers(1_000, 9_999)).toBe(false);
    log.windows.push({ kind: 'restart-redis', detail: '', startedAt: 30_000, endedAt: null, atOperation: 2 });
    expect(log.covers(40_000, 40_001)).toBe(true);
  });

  it('finds a removal that does not name the invitation its candidate joined through', () => {
    const added = event('AssessmentCandidateAdded', { assessmentId: 'a1', candidateId: 'c1', invitationId: 'inv-1', mode: 'sandbox' });
    const removedRight = event('AssessmentCandidateRemoved', { assessmentId: 'a1', candidateId: 'c1', invitationId: 'inv-1', mode: 'sandbox' });
    const removedNull = event('AssessmentCandidateRemoved', { assessmentId: 'a1', candidateId: 'c1', invitationId: null, mode: 'sandbox' });
    const facts = (events: LoggedEvent[]) => ({ events, invitations: new Map(), candidates: new Map(), assessments: new Map(), workspaceEvents: [] });
    expect(invariants((findings) => checkDeletionsEndInvitations(facts([added, removedRight]), findings))).toEqual([]);
    expect(invariants((findings) => checkDeletionsEndInvitations(facts([added, removedNull]), findings)))
      .toEqual(['a deleted candidate\'s removal names the invitation they joined through']);
    const joinedWithout = event('AssessmentCandidateAdded', { assessmentId: 'a2', candidateId: 'c2', invitationId: null, mode: 'sandbox' });
    const removedWithout = event('AssessmentCandidateRemoved', { assessmentId: 'a2', candidateId: 'c2', invitationId: null, mode: 'sandbox' });
    expect(invariants((findings) => checkDeletionsEndInvitations(facts([joinedWithout, removedWithout]), findings))).toEqual([]);
  });

  it('lets a key run again only after a Redis restart lost its record, and a replay of an answer only a lost attempt got', () => {
    const use = (startedAt: number, replayed: boolean, answer: unknown, lostAttempts?: number): IdempotentUse => ({
      workspaceId: 'ws', key: 'k', mode: 'live', path: '/p', body: { candidates: [] }, addresses: ['a@example.com'],
      startedAt, finishedAt: startedAt + 100, status: 200, replayed, answer, ...(lostAttempts === undefined ? {} : { lostAttempts }),
    });
    const twice = new Knowledge();
    twice.idempotent.push(use(1_000, false, { n: 1 }), use(5_000, false, { n: 2 }));
    const restarted = new FaultLog();
    restarted.windows.push({ kind: 'restart-redis', detail: '', startedAt: 3_000, endedAt: 3_500, atOperation: 1 });
    const elsewhere = new FaultLog();
    elsewhere.windows.push({ kind: 'restart-redis', detail: '', startedAt: 9_000, endedAt: 9_500, atOperation: 1 });
    expect(invariants((findings) => checkIdempotency(twice, findings))).toEqual(['an Idempotency-Key makes one original answer']);
    expect(invariants((findings) => checkIdempotency(twice, findings, elsewhere))).toEqual(['an Idempotency-Key makes one original answer']);
    expect(invariants((findings) => checkIdempotency(twice, findings, restarted))).toEqual([]);
    // A restart under way when the first request began (its record went to the server being stopped), and one over before it.
    const underWay = new FaultLog();
    underWay.windows.push({ kind: 'restart-redis', detail: '', startedAt: 900, endedAt: 1_600, atOperation: 1 });
    const overBefore = new FaultLog();
    overBefore.windows.push({ kind: 'restart-redis', detail: '', startedAt: 200, endedAt: 900, atOperation: 1 });
    expect(invariants((findings) => checkIdempotency(twice, findings, underWay))).toEqual([]);
    expect(invariants((findings) => checkIdempotency(twice, findings, overBefore))).toEqual(['an Idempotency-Key makes one original answer']);

    const replayOfUnseen = new Knowledge();
    replayOfUnseen.idempotent.push(use(1_000, true, { n: 1 }));
    expect(invariants((findings) => checkIdempotency(replayOfUnseen, findings))).toEqual(['a replay answers the original response']);
    const afterLoss = new Knowledge();
    afterLoss.idempotent.push(use(1_000, true, { n: 1 }, 2));
    expect(invariants((findings) => checkIdempotency(afterLoss, findings))).toEqual([]);
  });

  it('finds log lines that are not pino JSON and a stack logged per job', () => {
    const line = (fields: Record<string, unknown>) => JSON.stringify({ level: 50, time: 1, ...fields });
    const stack = (job: number) => line({ msg: 'webhook worker error', err: { message: `Missing key for job webhook-whd_${job}abcdef0123. moveToFinished`, stack: 'Error: …\n    at x' } });
    expect(invariants((findings) => checkProcessLogs([{ name: 'worker', output: [stack(1), stack(2), line({ msg: 'fine' })].join('\n') }], findings))).toEqual([]);
    expect(invariants((findings) => checkProcessLogs([{ name: 'worker', output: [1, 2, 3, 4].map(stack).join('\n') }], findings)))
      .toEqual(['one log line per problem, not a stack per job']);
    expect(invariants((findings) => checkProcessLogs([{ name: 'api', output: 'Error: boom\n    at somewhere' }], findings))).toEqual(['process logs are pino JSON lines']);
  });
});
