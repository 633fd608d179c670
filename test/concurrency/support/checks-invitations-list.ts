import type { Findings } from './findings.js';
import { ERASED, type LogFacts, type LoggedInvitation } from './log.js';
import { type Snapshot, snapshotKey } from './snapshot.js';
import { MODES, type WorkspaceWorld } from './world.js';

/** The invitations list's path for an assessment (read to its end by takeSnapshot). */
export const invitationsListPath = (assessmentId: string): string => `/v1/assessments/${assessmentId}/invitations`;

interface Row {
  email: string;
  status: string;
  invitedAt: string;
  invitationUrl: string | null;
  candidateId: string | null;
}

/** The candidate each invitation of the log registered, by invitation id (an AssessmentCandidateAdded naming it). */
const registrations = (facts: LogFacts): Map<string, string> => {
  const registered = new Map<string, string>();
  for (const event of facts.events) {
    if (event.type === 'AssessmentCandidateAdded' && typeof event.data.invitationId === 'string') registered.set(event.data.invitationId, event.data.candidateId);
  }
  return registered;
};

const describe = (row: Row | undefined): string => (row === undefined ? 'nothing' : JSON.stringify(row));

/**
 * GET /v1/assessments/{id}/invitations against the log: in each mode, every invitation of that mode
 * not withdrawn or removed with a deleted person is listed exactly once, with its own address (never
 * `[erased]`), its time, `registered` and its candidate exactly when a registration named it, and its
 * link while pending; nothing else is listed.
 */
export const checkInvitationsList = (workspace: WorkspaceWorld, snapshot: Snapshot, facts: LogFacts, findings: Findings): void => {
  const registered = registrations(facts);
  for (const mode of MODES) {
    for (const { id: assessmentId } of workspace.assessments) {
      const where = `workspace ${workspace.index} ${mode} assessment ${assessmentId}`;
      const read = snapshot.get(snapshotKey(workspace, mode, invitationsListPath(assessmentId)));
      if (!findings.expect(read?.status === 200, 'the invitations list answers', () => `${where}: ${read?.status}`)) continue;
      const rows = (read?.body?.data ?? []) as Row[];
      const standing = [...facts.invitations.values()].filter((invitation) =>
        invitation.assessmentId === assessmentId && invitation.mode === mode && invitation.endedBy === null);
      const byEmail = new Map<string, Row[]>();
      for (const row of rows) byEmail.set(row.email, [...(byEmail.get(row.email) ?? []), row]);
      for (const invitation of standing) {
        const listed = byEmail.get(invitation.email) ?? [];
        if (!findings.expect(listed.length === 1, 'every standing invitation is listed exactly once in its mode', () =>
          `${where}: invitation ${invitation.invitationId} (${invitation.email}) listed ${listed.length} times`)) continue;
        checkRow(where, invitation, listed[0], registered.get(invitation.invitationId) ?? null, findings);
      }
      const expected = new Set(standing.map((invitation) => invitation.email));
      for (const row of rows) {
        findings.expect(expected.has(row.email) && row.email !== ERASED, 'the invitations list holds only standing invitations of its mode', () => `${where}: ${describe(row)}`);
      }
    }
  }
};

const checkRow = (where: string, invitation: LoggedInvitation, row: Row | undefined, candidateId: string | null, findings: Findings): void => {
  const pending = candidateId === null;
  const link = row?.invitationUrl ?? null;
  const right = row !== undefined && row.invitedAt === invitation.invitedAt && row.status === (pending ? 'pending' : 'registered') && row.candidateId === candidateId
    && (pending ? link !== null && link.endsWith(`/invitations/${invitation.assessmentId}/${invitation.token}`) : link === null);
  findings.expect(right, 'an invitation is listed with its time, its status, its candidate once registered and its link while pending', () =>
    `${where}: invitation ${invitation.invitationId} (${pending ? 'pending' : `registered as ${candidateId}`}, invited ${invitation.invitedAt}) listed as ${describe(row)}`);
};
