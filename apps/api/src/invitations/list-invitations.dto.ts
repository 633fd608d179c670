import { OneOfParam } from '#http';
import { PageQuery } from '../shared/list-params.js';

export const INVITATION_STATUSES = ['pending', 'registered'] as const;

/** GET /v1/assessments/{assessmentId}/invitations (API 1.2.0): `limit` and `cursor` as 4.2, and `status`. */
export class ListInvitationsQuery extends PageQuery {
  @OneOfParam(INVITATION_STATUSES, '`pending`: not registered yet; `registered`: the person registered through the invitation. Omit for both')
  status?: (typeof INVITATION_STATUSES)[number];
}
