import type { AssessmentEvent, CandidateEmailEvent, CandidateEvent } from '../events.js';
import { findInvitationByToken, type ExistingAssessment } from '../assessments/assessment.state.js';
import { DomainError, invalidState, notFound } from '../shared/errors.js';
import type { Mode } from '../shared/types.js';
import { isPastDeadline } from '../shared/validation.js';
import type { CandidateEmailState, CandidateState } from './candidate.state.js';

export type RegistrationVia =
  | { kind: 'invitation'; token: string }
  /** The person as the edge typed them: the address normalized and valid, the names storable (empty when not given). */
  | { kind: 'inviteUrl'; token: string; email: string; firstName: string; surname: string };

export interface Registrant {
  email: string;
  firstName: string;
  surname: string;
  mode: Mode;
  invitationId: string | null;
}

/** Who is registering: the invitation's person, or the person who filled in the public sign-up form. */
export const resolveRegistrant = (assessment: ExistingAssessment, via: RegistrationVia): Registrant => {
  if (via.kind === 'invitation') {
    const invitation = findInvitationByToken(assessment, via.token);
    if (!invitation) throw notFound('invitation');
    const { email, person, mode, invitationId } = invitation;
    return { email, firstName: person.firstName, surname: person.surname, mode, invitationId };
  }
  if (via.token !== assessment.inviteToken) throw notFound('invite link');
  // Open sign-up always makes a live candidate; a pending live invitation of the address is accepted with it.
  const { email, firstName, surname } = via;
  const invitation = assessment.invitations.get(email);
  return { email, firstName, surname, mode: 'live', invitationId: invitation?.mode === 'live' ? invitation.invitationId : null };
};

export interface RegistrationDecision {
  created: boolean;
  candidateId: string;
  candidateEvents: CandidateEvent[];
  emailEvents: CandidateEmailEvent[];
  assessmentEvents: AssessmentEvent[];
}

const modeConflict = (registrantMode: Mode): DomainError =>
  registrantMode === 'live'
    ? new DomainError('sandbox_candidate', 'the address is a test candidate of the workspace')
    : new DomainError('live_candidate', 'the address is a live candidate of the workspace');

/**
 * Registration spans three boundaries, appended atomically: the address claim (one person per
 * workspace and address), the candidate, and the assessment (its candidates and invitations).
 */
export const decideRegistration = (input: {
  assessment: ExistingAssessment;
  registrant: Registrant;
  emailState: CandidateEmailState;
  candidate: CandidateState;
  newCandidateId: string;
  now: string;
}): RegistrationDecision => {
  const { assessment, registrant, emailState, candidate, now } = input;
  const claim = emailState.claim;
  if (claim && claim.mode !== registrant.mode) throw modeConflict(registrant.mode);
  const candidateId = claim?.candidateId ?? input.newCandidateId;
  const alreadyOn = candidate.status === 'active' && candidate.assessments[assessment.id] !== undefined;
  if (claim && alreadyOn) return { created: false, candidateId, candidateEvents: [], emailEvents: [], assessmentEvents: [] };
  if (assessment.status === 'archived') throw invalidState('the assessment is closed');
  if (isPastDeadline(assessment.deadline, now)) throw invalidState('the assessment is past its deadline');

  const base = { candidateId, workspaceId: assessment.workspaceId, mode: registrant.mode };
  const candidateEvents: CandidateEvent[] = [];
  const emailEvents: CandidateEmailEvent[] = [];
  if (!claim) {
    const { email, firstName, surname } = registrant;
    candidateEvents.push({ type: 'CandidateCreated', data: { ...base, email, firstName, surname, createdAt: now } });
    emailEvents.push({ type: 'CandidateEmailClaimed', data: { workspaceId: assessment.workspaceId, email, candidateId, mode: registrant.mode, claimedAt: now } });
  }
  candidateEvents.push({
    type: 'CandidateRegistered',
    data: { ...base, assessmentId: assessment.id, assessmentName: assessment.name, tests: assessment.tests, invitationId: registrant.invitationId, registeredAt: now },
  });
  const assessmentEvents: AssessmentEvent[] = [{
    type: 'AssessmentCandidateAdded',
    data: { assessmentId: assessment.id, workspaceId: assessment.workspaceId, candidateId, email: registrant.email, mode: registrant.mode, invitationId: registrant.invitationId, addedAt: now },
  }];
  return { created: !claim, candidateId, candidateEvents, emailEvents, assessmentEvents };
};
