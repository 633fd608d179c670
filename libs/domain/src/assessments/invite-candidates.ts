import type { CandidateInvited, WorkspaceEvent } from '../events.js';
import { DomainError, validationFailed } from '../shared/errors.js';
import type { Mode } from '../shared/types.js';
import { isPastDeadline, isPlainObject, isValidEmail, isValidPersonName, normalizeEmail, personNameOrEmpty } from '../shared/validation.js';
import type { ExistingAssessment } from './assessment.state.js';

export const MAX_CANDIDATES_PER_REQUEST = 100;

export type InvitationReason =
  | 'already_invited' | 'already_candidate' | 'invalid_email' | 'invalid_name' | 'invalid_entry' | 'live_candidate' | 'sandbox_candidate';

/** One entry of the invitation response (API 2.4), with the token instead of the URL. */
export interface InvitationOutcome {
  email: string;
  firstName: string;
  surname: string;
  status: 'invited' | 'already_invited' | 'failed';
  reason: InvitationReason | null;
  candidateId: string | null;
  invitationToken: string | null;
}

export interface InviteCandidatesCommand {
  type: 'InviteCandidates';
  /** The workspace of the API key: an assessment of another workspace is answered as not found. */
  workspaceId?: string;
  mode: Mode;
  /** `candidates` of the body as received. */
  candidates: unknown;
  workspaceVerified: boolean;
  sandboxPlacesLeft: number;
  /** Who already claims each (normalized) address in the workspace, and in which mode. */
  knownCandidates: Record<string, { candidateId: string; mode: Mode }>;
  /** Fresh ids for the entries that end up invited, taken in order. */
  newInvitation: (index: number) => { invitationId: string; invitationToken: string };
  metadata: { now: string };
}

/** The valid addresses of a request's entries, normalized, once each (`knownCandidates`); none for an oversized request. */
export const invitationAddresses = (candidates: unknown): string[] => {
  if (!Array.isArray(candidates) || candidates.length > MAX_CANDIDATES_PER_REQUEST) return [];
  const addresses = new Set<string>();
  for (const entry of candidates) {
    const email = isPlainObject(entry) ? normalizeEmail(entry.email) : null;
    if (email !== null && isValidEmail(email)) addresses.add(email);
  }
  return [...addresses];
};

/** Whole-request checks in the documented order (after 400, 404 and idempotency). */
const refuseWholeRequest = (command: InviteCandidatesCommand, assessment: ExistingAssessment): unknown[] => {
  const { candidates } = command;
  if (!Array.isArray(candidates) || candidates.length === 0) throw validationFailed('candidates must be a non-empty list');
  if (candidates.length > MAX_CANDIDATES_PER_REQUEST) {
    throw new DomainError('too_many_candidates', `at most ${MAX_CANDIDATES_PER_REQUEST} candidates per request`);
  }
  if (!command.workspaceVerified) {
    throw new DomainError('workspace_unverified', 'invitations are refused until someone in the workspace has confirmed an e-mail address');
  }
  if (assessment.status === 'archived' || isPastDeadline(assessment.deadline, command.metadata.now)) {
    throw new DomainError('assessment_closed', 'the assessment is closed or past its deadline');
  }
  return candidates;
};

const failed = (email: string, firstName: string, surname: string, reason: InvitationReason): InvitationOutcome =>
  ({ email, firstName, surname, status: 'failed', reason, candidateId: null, invitationToken: null });

export interface InvitationDecision {
  /** One per entry of the request, in its order. */
  outcomes: InvitationOutcome[];
  /** For the assessment's stream: the new invitations. */
  events: CandidateInvited[];
  /** For the workspace's stream, appended atomically with `events`: the sandbox places the new invitations use. */
  workspaceEvents: WorkspaceEvent[];
}

/** Judges every entry on its own, in order; returns the outcomes and the events of the new invitations. */
export const decideInvitations = (command: InviteCandidatesCommand, assessment: ExistingAssessment): InvitationDecision => {
  const entries = refuseWholeRequest(command, assessment);
  const outcomes: InvitationOutcome[] = [];
  const events: CandidateInvited[] = [];
  const firstCopies = new Map<string, InvitationOutcome>();

  for (const entry of entries) {
    if (!isPlainObject(entry)) {
      outcomes.push(failed('', '', '', 'invalid_entry'));
      continue;
    }
    const email = normalizeEmail(entry.email) ?? '';
    const firstName = personNameOrEmpty(entry.firstName);
    const surname = personNameOrEmpty(entry.surname);
    const judge = (): InvitationOutcome => {
      const same = { email, firstName, surname };
      if (!isValidEmail(email)) return failed(email, firstName, surname, 'invalid_email');
      const first = firstCopies.get(email);
      if (first) {
        return first.status === 'invited'
          ? { ...same, status: 'already_invited', reason: 'already_invited', candidateId: null, invitationToken: first.invitationToken }
          : { ...first, ...same };
      }
      if (!isValidPersonName(entry.firstName) || !isValidPersonName(entry.surname)) return failed(email, firstName, surname, 'invalid_name');
      const onAssessment = assessment.candidates.get(email);
      if (onAssessment && onAssessment.mode === command.mode) {
        return { ...same, status: 'already_invited', reason: 'already_candidate', candidateId: onAssessment.candidateId, invitationToken: null };
      }
      const known = command.knownCandidates[email];
      if (known && known.mode !== command.mode) return failed(email, firstName, surname, known.mode === 'live' ? 'live_candidate' : 'sandbox_candidate');
      const invitation = assessment.invitations.get(email);
      if (invitation) return { ...same, status: 'already_invited', reason: 'already_invited', candidateId: null, invitationToken: invitation.token };
      const { invitationId, invitationToken } = command.newInvitation(events.length);
      events.push({
        type: 'CandidateInvited',
        data: {
          assessmentId: assessment.id, workspaceId: assessment.workspaceId, assessmentName: assessment.name, deadline: assessment.deadline,
          invitationId, invitationToken, mode: command.mode, email, firstName, surname, invitedAt: command.metadata.now,
        },
      });
      return { ...same, status: 'invited', reason: null, candidateId: null, invitationToken };
    };
    const outcome = judge();
    if (email && !firstCopies.has(email)) firstCopies.set(email, outcome);
    outcomes.push(outcome);
  }

  if (command.mode === 'sandbox' && events.length > command.sandboxPlacesLeft) {
    throw new DomainError('sandbox_limit', `the workspace may create 25 test candidates in any 30 days; ${command.sandboxPlacesLeft} left`);
  }
  const workspaceEvents: WorkspaceEvent[] = command.mode === 'sandbox' && events.length > 0
    ? [{ type: 'SandboxPlacesUsed', data: { workspaceId: assessment.workspaceId, assessmentId: assessment.id, places: events.length, usedAt: command.metadata.now } }]
    : [];
  return { outcomes, events, workspaceEvents };
};
