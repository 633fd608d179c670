import { invitationUrl } from '#domain';
import { APP_URL_MARK, markedLinkJson } from '../shared/served-json.js';
import type { InvitationRowDocument, InvitationStatus } from './assessment-invitations.projection.js';

/** A row of GET /v1/assessments/{assessmentId}/invitations (API 1.2.0). */
export interface InvitationRowView {
  email: string;
  firstName: string;
  surname: string;
  status: InvitationStatus;
  invitedAt: string;
  invitationUrl: string | null;
  candidateId: string | null;
}

export const toInvitationRowView = (doc: InvitationRowDocument, appUrl: string): InvitationRowView => ({
  email: doc.email,
  firstName: doc.firstName,
  surname: doc.surname,
  status: doc.status,
  invitedAt: doc.invitedAt,
  invitationUrl: doc.status === 'pending' && doc.invitationToken !== null ? invitationUrl(appUrl, doc.assessmentId, doc.invitationToken) : null,
  candidateId: doc.candidateId,
});

/** The row's JSON as served, stored at every write (the link's APP_URL left as a marker). */
export const servedInvitationJson = (doc: InvitationRowDocument): string => {
  const { invitationUrl: link, candidateId, ...head } = toInvitationRowView(doc, APP_URL_MARK);
  return `${JSON.stringify(head).slice(0, -1)},"invitationUrl":${link === null ? 'null' : markedLinkJson(link)},"candidateId":${JSON.stringify(candidateId)}}`;
};
