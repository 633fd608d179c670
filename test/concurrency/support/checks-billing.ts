import type { Findings } from './findings.js';
import type { Knowledge } from './knowledge.js';
import type { LogFacts } from './log.js';
import type { WorkspaceWorld } from './world.js';

export interface Billing {
  freeAllowance: number;
  billedCandidates: { candidateId: string; resultId: string; chargedAt: string }[];
}

const SANDBOX_LIMIT = 25;
const WINDOW_MS = 30 * 24 * 3600 * 1000;

/**
 * Billing from three sides: the log's billing decisions (the first `freeAllowance` live candidates
 * unlocked are free, every later one charged, each candidate decided once), the internal billing
 * list, and the `charged` answers of the unlocks.
 */
export const checkBilling = (workspace: WorkspaceWorld, billing: Billing, facts: LogFacts, knowledge: Knowledge, findings: Findings): void => {
  const where = `workspace ${workspace.index} (${workspace.id})`;
  const decisions = facts.workspaceEvents.filter((event) => event.data.workspaceId === workspace.id && (event.type === 'FreeAllowanceUsed' || event.type === 'CandidateCharged'));
  const decided = new Map<string, string>();
  decisions.forEach((event, index) => {
    const { candidateId } = event.data;
    if (decided.has(candidateId)) findings.add('billing decided once per candidate', `${where}: ${candidateId} ${decided.get(candidateId)} then ${event.type}`);
    decided.set(candidateId, event.type);
    const expected = index < workspace.freeAllowance ? 'FreeAllowanceUsed' : 'CandidateCharged';
    findings.expect(event.type === expected, 'the first freeAllowance live candidates unlocked are free, every later one charged', () =>
      `${where}: decision ${index + 1} is ${event.type} for ${candidateId}`);
    findings.expect(facts.candidates.get(candidateId)?.mode === 'live', 'test candidates are never billed', () => `${where}: ${event.type} for ${candidateId}`);
  });
  const unlockedLive = [...facts.candidates.values()].filter((candidate) =>
    candidate.workspaceId === workspace.id && candidate.mode === 'live' && [...candidate.results.values()].some((unlock) => unlock !== null));
  for (const candidate of unlockedLive) {
    findings.expect(decided.has(candidate.id), 'every live candidate unlocked is billed or uses the free allowance', () => `${where}: ${candidate.id}`);
  }
  const charged = decisions.filter((event) => event.type === 'CandidateCharged');
  const listed = billing.billedCandidates.map(({ candidateId, resultId }) => `${candidateId}/${resultId}`).sort();
  const logged = charged.map((event) => `${event.data.candidateId}/${event.data.resultId}`).sort();
  findings.expect(JSON.stringify(listed) === JSON.stringify(logged), 'the billing list is the charges of the log', () =>
    `${where}: listed ${listed.length} [${listed.slice(0, 4).join(', ')}], logged ${logged.length} [${logged.slice(0, 4).join(', ')}]`);
  findings.expect(billing.freeAllowance === workspace.freeAllowance, 'the billing list shows the free allowance', () => `${where}: ${billing.freeAllowance}`);
  findings.expect(
    charged.length === Math.max(0, unlockedLive.length - workspace.freeAllowance),
    'billing exactly once per live candidate beyond the free allowance',
    () => `${where}: ${charged.length} charged for ${unlockedLive.length} live candidates unlocked, ${workspace.freeAllowance} free`,
  );
  const unlocks = knowledge.acknowledged.flatMap((ack) => (ack.kind === 'unlocked' && ack.workspaceId === workspace.id ? [ack] : []));
  const chargedAnswers = unlocks.filter((ack) => ack.charged);
  const billed = new Set(listed);
  for (const ack of chargedAnswers) {
    findings.expect(billed.has(`${ack.candidateId}/${ack.resultId}`), 'an unlock answered charged is on the billing list', () => `${where}: ${ack.candidateId}/${ack.resultId}`);
  }
  const perCandidate = new Map<string, number>();
  for (const ack of chargedAnswers) perCandidate.set(ack.candidateId, (perCandidate.get(ack.candidateId) ?? 0) + 1);
  for (const [candidateId, count] of perCandidate) {
    findings.expect(count === 1, 'one unlock answers charged per billed candidate', () => `${where}: ${candidateId} answered charged ${count} times`);
  }
  for (const { candidateId, resultId } of billing.billedCandidates) {
    const answered = unlocks.filter((ack) => ack.resultId === resultId);
    // A billed result whose unlocks were all answered said so in one of them (an unanswered unlock may have been the one).
    if (answered.length > 0 && knowledge.unansweredWrites === 0) {
      findings.expect(answered.some((ack) => ack.charged), 'the unlock that billed a candidate answered charged', () => `${where}: ${candidateId}/${resultId} answered ${answered.map((ack) => ack.charged).join(', ')}`);
    }
  }
  for (const candidate of facts.candidates.values()) {
    for (const [resultId, unlock] of candidate.results) {
      if (unlock === null || candidate.workspaceId !== workspace.id) continue;
      findings.expect(unlock.data.charged === charged.some((event) => event.data.resultId === resultId), 'ResultUnlocked.charged matches the charge', () => `${where}: ${resultId}`);
    }
  }
};

/** No 30-day window holds more than 25 new sandbox invitations, and the places used count them. */
export const checkSandboxAllowance = (workspace: WorkspaceWorld, facts: LogFacts, remaining: number | null, findings: Findings): void => {
  const where = `workspace ${workspace.index} (${workspace.id})`;
  const times = [...facts.invitations.values()]
    .filter((invitation) => invitation.workspaceId === workspace.id && invitation.mode === 'sandbox')
    .map((invitation) => Date.parse(invitation.invitedAt)).sort((a, b) => a - b);
  let first = 0;
  let worst = 0;
  times.forEach((time, index) => {
    while ((times[first] as number) <= time - WINDOW_MS) first += 1;
    worst = Math.max(worst, index - first + 1);
  });
  findings.expect(worst <= SANDBOX_LIMIT, 'the sandbox allowance is never exceeded', () => `${where}: ${worst} sandbox invitations within 30 days`);
  const places = facts.workspaceEvents
    .filter((event) => event.type === 'SandboxPlacesUsed' && event.data.workspaceId === workspace.id)
    // Read from the log as stored: version 1 of the event called it `count`, version 2 `places`.
    .reduce((sum, event) => sum + ((event.data.places ?? event.data.count) as number), 0);
  findings.expect(places === times.length, 'each new sandbox invitation uses one place', () => `${where}: ${places} places used for ${times.length} sandbox invitations`);
  if (remaining !== null) {
    findings.expect(remaining === Math.max(0, SANDBOX_LIMIT - times.length), 'GET /v1/me shows the places left', () => `${where}: remaining ${remaining} after ${times.length} sandbox invitations`);
  }
};
