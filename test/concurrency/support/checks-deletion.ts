import type { Findings } from './findings.js';
import type { LogFacts, LoggedEvent } from './log.js';

/**
 * A deleted test candidate leaves each assessment with the invitation they joined it through: the
 * AssessmentCandidateRemoved names the invitationId its AssessmentCandidateAdded named (never null
 * then), so the invitation ends with the person and nothing of theirs stays standing. Issue 37 saw
 * `invitationId: null` under faults, the invitation left open, its key destroyed.
 */
export const checkDeletionsEndInvitations = (facts: LogFacts, findings: Findings): void => {
  const joined = new Map<string, LoggedEvent>();
  for (const event of facts.events) {
    const slot = `${event.data.assessmentId} ${event.data.candidateId}`;
    if (event.type === 'AssessmentCandidateAdded') joined.set(slot, event);
    if (event.type !== 'AssessmentCandidateRemoved') continue;
    const added = joined.get(slot);
    const expected = added?.data.invitationId ?? null;
    findings.expect(event.data.invitationId === expected, 'a deleted candidate\'s removal names the invitation they joined through', () =>
      `${event.data.mode} candidate ${event.data.candidateId} removed from ${event.data.assessmentId} at position ${event.position} with invitationId `
      + `${JSON.stringify(event.data.invitationId)}, joined at position ${added?.position ?? 'nowhere'} through ${JSON.stringify(expected)}`);
  }
};
