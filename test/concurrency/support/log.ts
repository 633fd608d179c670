import type { Deployment } from './deployment.js';
import { tokenOf } from './knowledge.js';
import type { Mode } from './world.js';

export const ERASED = '[erased]';

export interface LoggedEvent {
  position: bigint;
  id: string;
  streamId: string;
  revision: number;
  type: string;
  data: any;
  metadata: any;
}

export interface LoggedInvitation {
  invitationId: string;
  eventId: string;
  workspaceId: string;
  assessmentId: string;
  email: string;
  mode: Mode;
  token: string;
  invitedAt: string;
  position: bigint;
  /** The InvitationWithdrawn or AssessmentCandidateRemoved that ended it, if any. */
  endedBy: LoggedEvent | null;
}

export interface LoggedCandidate {
  id: string;
  workspaceId: string;
  mode: Mode;
  email: string;
  firstName: string;
  surname: string;
  deleted: boolean;
  /** Position of its CandidateDeleted. */
  deletedAt: bigint | null;
  /** Events recorded on its stream after the deletion (there must be none). */
  afterDeletion: LoggedEvent[];
  assessments: Set<string>;
  started: Set<string>;
  /** resultId → the ResultUnlocked event, or null while locked. */
  results: Map<string, LoggedEvent | null>;
}

/** What the log says about one workload's workspaces, folded once for every check. */
export interface LogFacts {
  events: LoggedEvent[];
  invitations: Map<string, LoggedInvitation>;
  candidates: Map<string, LoggedCandidate>;
  /** assessmentId → its workspace, whether it was closed, and its candidates (joined, not removed). */
  assessments: Map<string, { workspaceId: string; closed: boolean; candidates: Set<string> }>;
  /** Events of the workspace streams (billing, sandbox places), in log order. */
  workspaceEvents: LoggedEvent[];
}

/**
 * The whole log with personal data opened (or `[erased]`), as the audit command line's `replay`
 * reads it through the internal application (`GET /internal/audit/export?view=opened`), keeping
 * the events of the given workspaces.
 */
export const readLog = async (deployment: Deployment, workspaceIds: ReadonlySet<string>): Promise<LoggedEvent[]> => {
  const response = await fetch(`${deployment.internalUrl()}/internal/audit/export?view=opened`, {
    headers: { authorization: `Bearer ${deployment.internalToken()}` },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the log export answered ${response.status}: ${text.slice(0, 300)}`);
  const events: LoggedEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const parsed = JSON.parse(line) as { kind: string; position?: string; data?: { workspaceId?: string } } & Omit<LoggedEvent, 'position'>;
    if (parsed.kind !== 'event' || !workspaceIds.has(parsed.data?.workspaceId ?? '')) continue;
    events.push({ ...parsed, position: BigInt(parsed.position ?? '0') });
  }
  return events;
};

export const foldLog = (events: LoggedEvent[]): LogFacts => {
  const facts: LogFacts = { events, invitations: new Map(), candidates: new Map(), assessments: new Map(), workspaceEvents: [] };
  const invitationOf = (invitationId: string | null): LoggedInvitation | undefined => (invitationId === null ? undefined : facts.invitations.get(invitationId));
  for (const event of events) {
    const { data } = event;
    const assessment = facts.assessments.get(data.assessmentId);
    const candidate = facts.candidates.get(data.candidateId);
    if (candidate?.deleted && event.streamId === `candidate-${candidate.id}`) candidate.afterDeletion.push(event);
    switch (event.type) {
      case 'AssessmentCreated':
        facts.assessments.set(data.assessmentId, { workspaceId: data.workspaceId, closed: false, candidates: new Set() });
        break;
      case 'AssessmentClosed':
        if (assessment) assessment.closed = true;
        break;
      case 'CandidateInvited':
        facts.invitations.set(data.invitationId, {
          invitationId: data.invitationId, eventId: event.id, workspaceId: data.workspaceId, assessmentId: data.assessmentId, email: data.email,
          mode: data.mode, token: data.invitationToken, invitedAt: data.invitedAt, position: event.position, endedBy: null,
        });
        break;
      case 'InvitationWithdrawn':
      case 'AssessmentCandidateRemoved': {
        const invitation = invitationOf(data.invitationId);
        if (invitation) invitation.endedBy = event;
        if (event.type === 'AssessmentCandidateRemoved') assessment?.candidates.delete(data.candidateId);
        break;
      }
      case 'AssessmentCandidateAdded':
        assessment?.candidates.add(data.candidateId);
        break;
      case 'CandidateCreated':
        facts.candidates.set(data.candidateId, {
          id: data.candidateId, workspaceId: data.workspaceId, mode: data.mode, email: data.email, firstName: data.firstName, surname: data.surname,
          deleted: false, deletedAt: null, afterDeletion: [], assessments: new Set(), started: new Set(), results: new Map(),
        });
        break;
      case 'CandidateRegistered':
        candidate?.assessments.add(data.assessmentId);
        break;
      case 'AssessmentStarted':
        candidate?.started.add(data.assessmentId);
        break;
      case 'TestCompleted':
        candidate?.results.set(data.resultId, null);
        break;
      case 'ResultUnlocked':
        candidate?.results.set(data.resultId, event);
        break;
      case 'CandidateDeleted':
        if (candidate) {
          candidate.deleted = true;
          candidate.deletedAt = event.position;
        }
        break;
      default:
        if (event.streamId.startsWith('workspace-')) facts.workspaceEvents.push(event);
    }
  }
  return facts;
};

/** The invitations of the log by the token of their link (what clients were handed). */
export const invitationsByToken = (facts: LogFacts): Map<string, LoggedInvitation> =>
  new Map([...facts.invitations.values()].map((invitation) => [invitation.token, invitation]));

export { tokenOf };
