import { at, event } from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { invitationsProjection, type PendingInvitationDocument } from './invitations.projection.js';

const invited = (email: string, invitationId: string) => event('CandidateInvited', {
  assessmentId: 'a1', workspaceId: 'w1', assessmentName: 'A', deadline: null, invitationId, invitationToken: `tok-${invitationId}`,
  mode: 'sandbox', email, firstName: '', surname: '', invitedAt: at(1),
});

describe('invitations projection (pending invitations by address)', () => {
  it('keeps an invitation while nobody has used it', () => {
    expect(project<PendingInvitationDocument>(invitationsProjection, [invited('ann@example.com', 'i1')], 'a1:ann@example.com')).toEqual({
      id: 'a1:ann@example.com', workspaceId: 'w1', assessmentId: 'a1', email: 'ann@example.com', mode: 'sandbox', invitationId: 'i1',
      invitationToken: 'tok-i1', invitedAt: at(1),
    });
  });

  it('drops it once the person registers, or when it is withdrawn', () => {
    const added = event('AssessmentCandidateAdded', { assessmentId: 'a1', workspaceId: 'w1', candidateId: 'c1', email: 'ann@example.com', mode: 'sandbox', invitationId: 'i1', addedAt: at(2) });
    const withdrawn = event('InvitationWithdrawn', { assessmentId: 'a1', workspaceId: 'w1', email: 'ann@example.com', invitationId: 'i1', withdrawnAt: at(2) });
    expect(project(invitationsProjection, [invited('ann@example.com', 'i1'), added], 'a1:ann@example.com')).toBeNull();
    expect(project(invitationsProjection, [invited('ann@example.com', 'i1'), withdrawn], 'a1:ann@example.com')).toBeNull();
  });

  it('ignores the withdrawal of an older invitation', () => {
    const staleWithdrawal = event('InvitationWithdrawn', { assessmentId: 'a1', workspaceId: 'w1', email: 'ann@example.com', invitationId: 'i0', withdrawnAt: at(2) });
    expect(project<PendingInvitationDocument>(invitationsProjection, [invited('ann@example.com', 'i1'), staleWithdrawal], 'a1:ann@example.com')?.invitationId).toBe('i1');
  });
});
