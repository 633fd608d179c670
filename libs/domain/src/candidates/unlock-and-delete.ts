import type { AssessmentEvent, CandidateEmailEvent, CandidateEvent, WorkspaceEvent } from '../events.js';
import { DomainError, notFound } from '../shared/errors.js';
import { decideBilling } from '../workspaces/workspace.decider.js';
import type { ActiveWorkspace } from '../workspaces/workspace.state.js';
import { type ExistingCandidate, candidateRef, findResult } from './candidate.state.js';

export interface UnlockDecision {
  candidateEvents: CandidateEvent[];
  workspaceEvents: WorkspaceEvent[];
  unlockedAt: string;
  charged: boolean;
}

/** A result unlocks once; a second unlock answers the first unlock's time and charges nothing. */
export const decideUnlock = (candidate: ExistingCandidate, workspace: ActiveWorkspace, resultId: string, now: string): UnlockDecision => {
  if (candidate.status !== 'active') throw notFound('result');
  const found = findResult(candidate, resultId);
  if (!found) throw notFound('result');
  const { assessmentId, result } = found;
  if (result.unlockedAt) return { candidateEvents: [], workspaceEvents: [], unlockedAt: result.unlockedAt, charged: false };
  const workspaceEvents = decideBilling(workspace, { candidateId: candidate.id, resultId, mode: candidate.mode, now });
  const charged = workspaceEvents.some((event) => event.type === 'CandidateCharged');
  const assessmentName = candidate.assessments[assessmentId]?.name ?? '';
  return {
    candidateEvents: [{
      type: 'ResultUnlocked',
      data: { candidateId: candidate.id, workspaceId: candidate.workspaceId, mode: candidate.mode, assessmentId, resultId, candidate: candidateRef(candidate), assessmentName, unlockedAt: now, charged },
    }],
    workspaceEvents,
    unlockedAt: now,
    charged,
  };
};

export interface DeletionDecision {
  candidateEvents: CandidateEvent[];
  emailEvents: CandidateEmailEvent[];
  /** By assessment id. */
  assessmentEvents: Record<string, AssessmentEvent[]>;
}

/** Only test candidates can be deleted; the address becomes free to be invited again as a new person. */
export const decideDeleteCandidate = (
  candidate: ExistingCandidate,
  invitationIds: Record<string, string | null>,
  now: string,
  /** Invitations to this address the person never used, on assessments they did not register on. */
  pendingInvitations: readonly { assessmentId: string; invitationId: string }[] = [],
): DeletionDecision => {
  // A deleted candidate is gone: deleting again must not remove a later person of the same address from the assessments.
  if (candidate.status !== 'active') throw notFound('candidate');
  if (candidate.mode !== 'sandbox') throw new DomainError('not_a_test_candidate', 'only test candidates can be deleted');
  const assessmentIds = Object.keys(candidate.assessments);
  const resultIds = Object.values(candidate.assessments).flatMap((entry) => Object.values(entry.results).map((result) => result.resultId));
  const { id: candidateId, workspaceId, mode, email } = candidate;
  const assessmentEvents: Record<string, AssessmentEvent[]> = {};
  for (const assessmentId of assessmentIds) {
    assessmentEvents[assessmentId] = [{
      type: 'AssessmentCandidateRemoved',
      data: { assessmentId, workspaceId, candidateId, email, mode, invitationId: invitationIds[assessmentId] ?? null, removedAt: now },
    }];
  }
  for (const { assessmentId, invitationId } of pendingInvitations) {
    if (assessmentEvents[assessmentId]) continue;
    assessmentEvents[assessmentId] = [{ type: 'InvitationWithdrawn', data: { assessmentId, workspaceId, email, invitationId, withdrawnAt: now } }];
  }
  return {
    candidateEvents: [{ type: 'CandidateDeleted', data: { candidateId, workspaceId, mode, email, assessmentIds, resultIds, deletedAt: now } }],
    emailEvents: [{ type: 'CandidateEmailReleased', data: { workspaceId, email, candidateId, releasedAt: now } }],
    assessmentEvents,
  };
};
