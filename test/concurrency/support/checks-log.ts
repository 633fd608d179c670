import type { Findings } from './findings.js';
import type { Knowledge } from './knowledge.js';
import { ERASED, type LogFacts, invitationsByToken } from './log.js';

/** Every write a client was answered 2xx for is in the log, and the log holds no invitation nobody was answered for. */
export const checkAcknowledgedWrites = (facts: LogFacts, knowledge: Knowledge, findings: Findings): void => {
  const byToken = invitationsByToken(facts);
  const closed = (assessmentId: string) => facts.assessments.get(assessmentId)?.closed === true;
  const candidate = (id: string) => facts.candidates.get(id);
  const missing = (what: string) => findings.add('every acknowledged write is in the log', what);
  for (const ack of knowledge.acknowledged) {
    switch (ack.kind) {
      case 'invited':
        if (byToken.get(ack.token)?.assessmentId !== ack.assessmentId) missing(`invitation ${ack.token} on assessment ${ack.assessmentId}`);
        break;
      case 'registered':
        if (!candidate(ack.candidateId)?.assessments.has(ack.assessmentId)) missing(`registration of ${ack.candidateId} on ${ack.assessmentId}`);
        break;
      case 'started':
        if (!candidate(ack.candidateId)?.started.has(ack.assessmentId)) missing(`start of ${ack.candidateId} on ${ack.assessmentId}`);
        break;
      case 'completed':
        if (!candidate(ack.candidateId)?.results.has(ack.resultId)) missing(`result ${ack.resultId} of ${ack.candidateId}`);
        break;
      case 'unlocked': {
        const unlocked = candidate(ack.candidateId)?.results.get(ack.resultId);
        if (!unlocked) missing(`unlock of ${ack.resultId}`);
        else if (unlocked.data.unlockedAt !== ack.unlockedAt) findings.add('an unlock answers the unlock recorded', `${ack.resultId}: answered ${ack.unlockedAt}, logged ${unlocked.data.unlockedAt}`);
        break;
      }
      case 'deleted':
        if (!candidate(ack.candidateId)?.deleted) missing(`deletion of ${ack.candidateId}`);
        break;
      case 'closed':
        if (!closed(ack.assessmentId)) missing(`closing of ${ack.assessmentId}`);
        break;
    }
  }
  const acknowledgedTokens = new Set(knowledge.acknowledged.flatMap((ack) => (ack.kind === 'invited' ? [ack.token] : [])));
  const unanswered = [...facts.invitations.values()].filter((invitation) => !acknowledgedTokens.has(invitation.token));
  if (unanswered.length > 0 && knowledge.unansweredWrites === 0) {
    findings.add('the log holds only invitations somebody was answered for', `${unanswered.length} invitations, e.g. ${unanswered.slice(0, 3).map((i) => `${i.email} on ${i.assessmentId}`).join(', ')}`);
  }
};

/** At most one invitation per address and assessment stands at any point of the log (withdrawn and removed ones do not count). */
export const checkInvitationUniqueness = (facts: LogFacts, findings: Findings): void => {
  const standing = new Map<string, string>();
  for (const event of facts.events) {
    const { data } = event;
    if (event.type === 'CandidateInvited') {
      const slot = `${data.assessmentId} ${data.email}`;
      const holder = data.email === ERASED ? undefined : standing.get(slot);
      if (holder !== undefined) findings.add('at most one standing invitation per address and assessment', `${data.email} on ${data.assessmentId}: ${holder} and ${data.invitationId}`);
      if (data.email !== ERASED) standing.set(slot, data.invitationId);
    } else if ((event.type === 'InvitationWithdrawn' || event.type === 'AssessmentCandidateRemoved') && data.invitationId) {
      for (const [slot, invitationId] of standing) if (invitationId === data.invitationId) standing.delete(slot);
    }
  }
};

/**
 * An erasure takes only what the deletion removed: an invitation that still stands at the end (a new
 * person's, or one the deletion did not withdraw) must read in the clear. Reported with the deletions
 * of its address, positions in the log, so a race shows where it fell.
 */
export const checkStandingInvitationsReadable = (facts: LogFacts, knowledge: Knowledge, findings: Findings): void => {
  for (const invitation of facts.invitations.values()) {
    if (invitation.endedBy !== null || invitation.email !== ERASED) continue;
    const address = knowledge.links.get(invitation.token)?.email ?? 'an address no answer showed';
    const deletions = [...facts.candidates.values()]
      .filter((candidate) => candidate.deletedAt !== null && candidate.workspaceId === invitation.workspaceId && knowledge.candidates.get(candidate.id)?.email === address)
      .map((candidate) => `${candidate.id} deleted at position ${candidate.deletedAt}`);
    findings.add('a standing invitation keeps its personal data', `${invitation.mode} invitation ${invitation.invitationId} of ${address} on ${invitation.assessmentId}, `
      + `invited at position ${invitation.position}, reads "${ERASED}"; ${deletions.length > 0 ? deletions.join(', ') : 'no deletion of that address'}`);
  }
};

/** A deleted candidate stays deleted: nothing joins, starts, finishes or unlocks on their stream afterwards. */
export const checkNothingAfterDeletion = (facts: LogFacts, findings: Findings): void => {
  for (const candidate of facts.candidates.values()) {
    for (const event of candidate.afterDeletion) {
      findings.add('a deleted candidate\'s stream ends with the deletion', `${candidate.mode} candidate ${candidate.id} deleted at position ${candidate.deletedAt}, `
        + `then ${event.type} at ${event.position}${event.data.assessmentId ? ` on ${event.data.assessmentId}` : ''}`);
    }
  }
};

/** One candidate per workspace, mode and address among those not deleted; and, per the product, one per workspace and address. */
export const checkOneCandidatePerAddress = (facts: LogFacts, findings: Findings): void => {
  const holders = new Map<string, string[]>();
  for (const candidate of facts.candidates.values()) {
    if (candidate.deleted) continue;
    if (candidate.email === ERASED) {
      findings.add('a candidate not deleted keeps their personal data in the log', `${candidate.mode} candidate ${candidate.id} reads "${ERASED}"`);
      continue;
    }
    const key = `${candidate.workspaceId} ${candidate.email}`;
    holders.set(key, [...(holders.get(key) ?? []), `${candidate.id} (${candidate.mode})`]);
  }
  for (const [key, ids] of holders) {
    if (ids.length > 1) findings.add('one candidate per workspace and address (whatever the mode) among those not deleted', `${key}: ${ids.join(', ')}`);
  }
};
