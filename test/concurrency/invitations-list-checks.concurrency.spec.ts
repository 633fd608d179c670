import { checkInvitationsList, invitationsListPath } from './support/checks-invitations-list.js';
import { Findings } from './support/findings.js';
import { ERASED, type LoggedEvent, foldLog } from './support/log.js';
import type { Snapshot } from './support/snapshot.js';
import type { WorkspaceWorld } from './support/world.js';

/* The invitations list's check of the tier, fed answers that break (or keep) it: a check that cannot fail is a defect. */

let position = 0n;
const event = (type: string, data: Record<string, unknown>): LoggedEvent =>
  ({ position: ++position, id: `ev-${position}`, streamId: 'assessment-a1', revision: 0, type, data: { workspaceId: 'ws', assessmentId: 'a1', ...data }, metadata: {} });
const invited = (invitationId: string, email: string, mode: string) =>
  event('CandidateInvited', { invitationId, email, mode, invitationToken: `t-${invitationId}`, invitedAt: `2026-10-01T00:00:0${position}.000Z` });
const workspace = { index: 0, id: 'ws', assessments: [{ id: 'a1', tests: [], closed: false }] } as unknown as WorkspaceWorld;

const facts = foldLog([
  invited('i1', 'pending@e.com', 'live'),
  invited('i2', 'joined@e.com', 'live'),
  event('AssessmentCandidateAdded', { candidateId: 'c2', email: 'joined@e.com', mode: 'live', invitationId: 'i2' }),
  invited('i3', 'gone@e.com', 'sandbox'),
  event('InvitationWithdrawn', { email: 'gone@e.com', invitationId: 'i3' }),
  invited('i4', 'test@e.com', 'sandbox'),
]);
const at = (invitationId: string) => facts.invitations.get(invitationId)?.invitedAt;
const row = (invitationId: string, email: string, candidateId: string | null = null) => ({
  email, firstName: '', surname: '', status: candidateId === null ? 'pending' : 'registered', invitedAt: at(invitationId),
  invitationUrl: candidateId === null ? `http://app/invitations/a1/t-${invitationId}` : null, candidateId,
});
const good = { live: [row('i2', 'joined@e.com', 'c2'), row('i1', 'pending@e.com')], sandbox: [row('i4', 'test@e.com')] };
const lists = (live: unknown[], sandbox: unknown[], status = 200): Snapshot => new Map([
  [`0:live:${invitationsListPath('a1')}`, { status, body: { data: live } }],
  [`0:sandbox:${invitationsListPath('a1')}`, { status: 200, body: { data: sandbox } }],
]);
const broken = (snapshot: Snapshot): string[] => {
  const findings = new Findings();
  checkInvitationsList(workspace, snapshot, facts, findings);
  return [...new Set(findings.items.map((finding) => finding.invariant))];
};

describe('the concurrency tier\'s check of the invitations list', () => {
  const once = 'every standing invitation is listed exactly once in its mode';
  const only = 'the invitations list holds only standing invitations of its mode';
  const shape = 'an invitation is listed with its time, its status, its candidate once registered and its link while pending';

  it('holds for the lists the log makes', () => {
    expect(broken(lists(good.live, good.sandbox))).toEqual([]);
  });

  it('sees a standing invitation missing or listed twice', () => {
    expect(broken(lists([good.live[0]], good.sandbox))).toEqual([once]);
    expect(broken(lists([...good.live, good.live[1]], good.sandbox))).toEqual([once]);
  });

  it('sees a withdrawn invitation, another mode\'s or an erased address listed', () => {
    expect(broken(lists(good.live, [...good.sandbox, row('i3', 'gone@e.com')]))).toEqual([only]);
    expect(broken(lists([...good.live, row('i4', 'test@e.com')], good.sandbox))).toEqual([only]);
    expect(broken(lists([...good.live, row('i3', ERASED)], good.sandbox))).toEqual([only]);
  });

  it('sees a wrong status, candidate, time or link', () => {
    expect(broken(lists([row('i2', 'joined@e.com'), good.live[1]], good.sandbox))).toEqual([shape]);
    expect(broken(lists([row('i2', 'joined@e.com', 'c9'), good.live[1]], good.sandbox))).toEqual([shape]);
    expect(broken(lists([good.live[0], { ...row('i1', 'pending@e.com'), invitedAt: at('i2') }], good.sandbox))).toEqual([shape]);
    expect(broken(lists([good.live[0], { ...row('i1', 'pending@e.com'), invitationUrl: 'http://app/invitations/a1/t-i2' }], good.sandbox))).toEqual([shape]);
    expect(broken(lists([{ ...row('i2', 'joined@e.com', 'c2'), invitationUrl: 'http://app/invitations/a1/t-i2' }, good.live[1]], good.sandbox))).toEqual([shape]);
  });

  it('sees a list that does not answer', () => {
    expect(broken(lists(good.live, good.sandbox, 500))).toEqual(['the invitations list answers']);
  });
});
