import type { DomainEvent, Mode } from '#domain';
import { at, event } from '../test-support/domain-fixtures.js';
import { project, recorded } from '../test-support/recorded.js';
import { fillAppUrl } from '../shared/served-json.js';
import { assessmentInvitationsProjection, type InvitationRowDocument } from './assessment-invitations.projection.js';
import { servedInvitationJson, toInvitationRowView } from './invitation-row.view.js';

const invited = (invitationId: string, email = 'ann@example.com', mode: Mode = 'sandbox', minute = 1): DomainEvent => event('CandidateInvited', {
  assessmentId: 'a1', workspaceId: 'w1', assessmentName: 'A', deadline: null, invitationId, invitationToken: `tok-${invitationId}`,
  mode, email, firstName: 'Ann', surname: 'Lee', invitedAt: at(minute),
});
const added = (invitationId: string | null, candidateId = 'c1', email = 'ann@example.com', mode: Mode = 'sandbox'): DomainEvent =>
  event('AssessmentCandidateAdded', { assessmentId: 'a1', workspaceId: 'w1', candidateId, email, mode, invitationId, addedAt: at(2) });
const removed = (invitationId: string | null, email = 'ann@example.com'): DomainEvent =>
  event('AssessmentCandidateRemoved', { assessmentId: 'a1', workspaceId: 'w1', candidateId: 'c1', email, mode: 'sandbox', invitationId, removedAt: at(3) });
const withdrawn = (invitationId: string, email = 'ann@example.com'): DomainEvent =>
  event('InvitationWithdrawn', { assessmentId: 'a1', workspaceId: 'w1', email, invitationId, withdrawnAt: at(3) });
const row = (events: DomainEvent[], id = 'i1') => project<InvitationRowDocument>(assessmentInvitationsProjection, events, id);

describe('assessment invitations projection (every invitation of an assessment, by id)', () => {
  it('lists a new invitation as pending, with its link', () => {
    expect(row([invited('i1')])).toEqual({
      id: 'i1', workspaceId: 'w1', assessmentId: 'a1', mode: 'sandbox', email: 'ann@example.com', firstName: 'Ann', surname: 'Lee',
      status: 'pending', invitedAt: at(1), invitationToken: 'tok-i1', candidateId: null,
    });
  });

  it('marks it registered by the registration that names it, and forgets its link', () => {
    const doc = row([invited('i1'), added('i1', 'c9')]);
    expect(doc).toMatchObject({ status: 'registered', candidateId: 'c9', invitationToken: null, email: 'ann@example.com', invitedAt: at(1) });
    // A second registration event (none is recorded today) changes nothing.
    expect(row([invited('i1'), added('i1', 'c9'), added('i1', 'c10')])).toEqual(doc);
  });

  it('leaves it pending when the address joins without it (open sign-up in the other mode)', () => {
    expect(row([invited('i1'), added(null, 'c9', 'ann@example.com', 'live')])?.status).toBe('pending');
  });

  it('drops it when its person is deleted: withdrawn while pending, removed once registered', () => {
    expect(row([invited('i1'), withdrawn('i1')])).toBeNull();
    expect(row([invited('i1'), added('i1'), removed('i1')])).toBeNull();
    // The address of an erased person reads `[erased]`: the row is found by the invitation id all the same.
    expect(row([invited('i1', '[erased]'), added('i1', 'c1', '[erased]'), removed('i1', '[erased]')])).toBeNull();
    expect(row([invited('i1', '[erased]'), withdrawn('i1', '[erased]')])).toBeNull();
  });

  it('keeps a re-invitation of the address after a deletion as a row of its own, the old one gone', () => {
    const events = [invited('i1'), added('i1'), removed('i1'), invited('i2', 'ann@example.com', 'sandbox', 5)];
    expect(row(events, 'i1')).toBeNull();
    expect(row(events, 'i2')).toMatchObject({ id: 'i2', status: 'pending', invitedAt: at(5) });
  });

  it('ignores a withdrawal or removal of another invitation, and one naming none', () => {
    expect(row([invited('i1'), withdrawn('i0')])?.status).toBe('pending');
    expect(row([invited('i1'), added('i1'), removed(null)])?.status).toBe('registered');
    expect(recorded([removed(null), added(null)]).map((one) => assessmentInvitationsProjection.documentIds(one))).toEqual([[], []]);
  });

  it('serves the row in the order and shape of the contract, the link on the APP_URL marker', () => {
    const pending = row([invited('i1')]);
    const registered = row([invited('i1'), added('i1', 'c9')]);
    if (pending === null || registered === null) throw new Error('rows expected');
    const served = (doc: InvitationRowDocument) => fillAppUrl(servedInvitationJson(doc), 'https://app.example.com/x');
    expect(served(pending)).toBe(JSON.stringify(toInvitationRowView(pending, 'https://app.example.com/x')));
    expect(JSON.parse(served(pending))).toStrictEqual({
      email: 'ann@example.com', firstName: 'Ann', surname: 'Lee', status: 'pending', invitedAt: at(1),
      invitationUrl: 'https://app.example.com/x/invitations/a1/tok-i1', candidateId: null,
    });
    expect(served(registered)).toBe(JSON.stringify(toInvitationRowView(registered, 'https://app.example.com/x')));
    expect(JSON.parse(served(registered))).toMatchObject({ status: 'registered', invitationUrl: null, candidateId: 'c9' });
  });
});

