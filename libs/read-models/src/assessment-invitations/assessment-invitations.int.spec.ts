import type { DomainEvent, Mode } from '#domain';
import { rebuildReadModels } from '../rebuild/rebuild-read-models.js';
import type { FieldValue } from '../shared/document-store.port.js';
import { fillAppUrl } from '../shared/served-json.js';
import { assessment, assessmentCreated, at, event } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { project } from '../test-support/recorded.js';
import { assessmentInvitationsProjection, type InvitationRowDocument } from './assessment-invitations.projection.js';
import { listInvitations, listServedInvitations, type ListInvitationsOptions } from './assessment-invitations.queries.js';

const a1 = assessment('w1', 'a1');
const a2 = assessment('w1', 'a2');
const ids = (docs: readonly InvitationRowDocument[]): string[] => docs.map(({ id }) => id);
const strings = (next: FieldValue[] | null): string[] | undefined => next?.map(String);

const invited = (invitationId: string, email: string, mode: Mode, minute: number, on = a1): DomainEvent => event('CandidateInvited', {
  assessmentId: on.id, workspaceId: on.workspaceId, assessmentName: on.name, deadline: null, invitationId, invitationToken: `tok-${invitationId}`,
  mode, email, firstName: `F ${invitationId}`, surname: `S ${invitationId}`, invitedAt: at(minute),
});
const joined = (invitationId: string | null, candidateId: string, email: string, mode: Mode, minute: number): DomainEvent =>
  event('AssessmentCandidateAdded', { assessmentId: 'a1', workspaceId: 'w1', candidateId, email, mode, invitationId, addedAt: at(minute) });
const removed = (invitationId: string, candidateId: string, email: string, minute: number): DomainEvent =>
  event('AssessmentCandidateRemoved', { assessmentId: 'a1', workspaceId: 'w1', candidateId, email, mode: 'sandbox', invitationId, removedAt: at(minute) });
const withdrawn = (invitationId: string, email: string, minute: number, on = a1): DomainEvent =>
  event('InvitationWithdrawn', { assessmentId: on.id, workspaceId: 'w1', email, invitationId, withdrawnAt: at(minute) });

/*
 * a1, live:    l1 (minute 1, registered as c1), l2 and l3 (minute 2, one request: ties by id), l4 (minute 4)
 * a1, sandbox: s1 (registered then deleted), s2 (withdrawn: its person deleted), s3 (the address of s1 invited again), s4
 * a2:          one live invitation
 */
const history: DomainEvent[] = [
  assessmentCreated(a1, at(0)), assessmentCreated(a2, at(0)),
  invited('l1', 'l1@example.com', 'live', 1), invited('s1', 'gone@example.com', 'sandbox', 1), invited('s2', 'away@example.com', 'sandbox', 1),
  invited('l3', 'l3@example.com', 'live', 2), invited('l2', 'l2@example.com', 'live', 2),
  joined('l1', 'c1', 'l1@example.com', 'live', 3),
  joined('s1', 't1', 'gone@example.com', 'sandbox', 3),
  invited('l4', 'l4@example.com', 'live', 4), invited('other', 'l1@example.com', 'live', 4, a2),
  removed('s1', 't1', 'gone@example.com', 5), withdrawn('s2', 'away@example.com', 5),
  invited('s3', 'gone@example.com', 'sandbox', 6), invited('s4', 's4@example.com', 'sandbox', 7),
];

describe('assessment invitations read model (PostgreSQL)', () => {
  let harness: Harness;
  const list = (options: Partial<ListInvitationsOptions>) =>
    listInvitations(harness.documentStore, { assessmentId: 'a1', mode: 'live', limit: 50, ...options });
  const everyRow = () => harness.all(assessmentInvitationsProjection.name);

  beforeAll(async () => {
    harness = await createHarness('rm_assessment_invitations', [assessmentInvitationsProjection]);
    await harness.append(history);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('lists one mode of one assessment, newest first, ties by id, registered ones with their candidate', async () => {
    const { items, next } = await list({});
    expect(ids(items)).toEqual(['l4', 'l3', 'l2', 'l1']);
    expect(next).toBeNull();
    expect(items.find(({ id }) => id === 'l1')).toMatchObject({ status: 'registered', candidateId: 'c1', invitationToken: null, email: 'l1@example.com' });
    expect(items.filter(({ id }) => id !== 'l1').every(({ status, candidateId }) => status === 'pending' && candidateId === null)).toBe(true);
    expect(ids((await list({ assessmentId: 'a2' })).items)).toEqual(['other']);
    expect(ids((await list({ assessmentId: 'a2', mode: 'sandbox' })).items)).toEqual([]);
  });

  it('drops the invitations of deleted test candidates and keeps the address invited again as a row of its own', async () => {
    expect(ids((await list({ mode: 'sandbox' })).items)).toEqual(['s4', 's3']);
    const rows = (await everyRow()) as InvitationRowDocument[];
    expect(rows.map(({ email }) => email)).not.toContain('away@example.com');
    expect(rows.filter(({ email }) => email === 'gone@example.com').map(({ id }) => id)).toEqual(['s3']);
  });

  it('filters by status', async () => {
    expect(ids((await list({ status: 'pending' })).items)).toEqual(['l4', 'l3', 'l2']);
    expect(ids((await list({ status: 'registered' })).items)).toEqual(['l1']);
    expect(ids((await list({ status: 'registered', mode: 'sandbox' })).items)).toEqual([]);
  });

  it('serves each row as the contract shapes it, the link only while pending', async () => {
    const page = await listServedInvitations(harness.documentStore, { assessmentId: 'a1', mode: 'live', limit: 2 });
    expect(page.next).toEqual([at(2), 'l3']);
    expect(page.rows.map((json) => JSON.parse(fillAppUrl(json, 'https://app.example.com')))).toStrictEqual([
      { email: 'l4@example.com', firstName: 'F l4', surname: 'S l4', status: 'pending', invitedAt: at(4), invitationUrl: 'https://app.example.com/invitations/a1/tok-l4', candidateId: null },
      { email: 'l3@example.com', firstName: 'F l3', surname: 'S l3', status: 'pending', invitedAt: at(2), invitationUrl: 'https://app.example.com/invitations/a1/tok-l3', candidateId: null },
    ]);
    const last = await listServedInvitations(harness.documentStore, { assessmentId: 'a1', mode: 'live', limit: 2, after: page.next ?? undefined });
    expect(last.next).toBeNull();
    expect(JSON.parse(fillAppUrl(last.rows[1] ?? '', 'https://app.example.com'))).toMatchObject({ email: 'l1@example.com', status: 'registered', invitationUrl: null, candidateId: 'c1' });
  });

  it('pages by keyset without skips or repeats while invitations are made and used', async () => {
    const first = await list({ limit: 2 });
    expect(ids(first.items)).toEqual(['l4', 'l3']);
    await harness.append([invited('l5', 'l5@example.com', 'live', 8), invited('l0', 'l0@example.com', 'live', 2), joined('l2', 'c2', 'l2@example.com', 'live', 8)]);
    await harness.project();
    const second = await list({ limit: 2, after: strings(first.next) });
    // l0 was made after the first page was read, behind its boundary (an older time): it comes on a later page, once.
    expect(ids(second.items)).toEqual(['l2', 'l0']);
    expect(second.items[0]).toMatchObject({ status: 'registered', candidateId: 'c2' });
    const third = await list({ limit: 2, after: strings(second.next) });
    expect(ids(third.items)).toEqual(['l1']);
    expect(third.next).toBeNull();
    expect(ids((await list({})).items)).toEqual(['l5', 'l4', 'l3', 'l2', 'l0', 'l1']);
  });

  it('changes nothing when the events are handed over again (replay twice), and a rebuild gives the same rows', async () => {
    const before = await everyRow();
    const stored = (): Promise<Map<string, bigint | null>> => harness.documentStore.checkpoints([assessmentInvitationsProjection.name]);
    const checkpoint = (await stored()).get(assessmentInvitationsProjection.name);
    await harness.project({ startAfter: null });
    expect(await everyRow()).toEqual(before);
    expect((await stored()).get(assessmentInvitationsProjection.name)).toBe(checkpoint);
    await rebuildReadModels({ eventStore: harness.eventStore, documentStore: harness.documentStore, projections: [assessmentInvitationsProjection], batchSize: 3 });
    expect(await everyRow()).toEqual(before);
  });
});

describe('assessment invitations read model after an erasure (PostgreSQL)', () => {
  let harness: Harness;
  afterEach(() => harness.close());

  it('rebuilt from a log whose deleted person reads [erased], holds nothing of them and equals the live rows', async () => {
    harness = await createHarness('rm_assessment_invitations_erased', [assessmentInvitationsProjection]);
    // What a rebuild reads once the person's key is destroyed: their address and names erased, their ids intact.
    const erased = history.map((one) => {
      const data = one.data as unknown as Record<string, unknown>;
      return (data['email'] === 'gone@example.com' && data['invitationId'] === 's1') || data['invitationId'] === 's2'
        ? ({ ...one, data: { ...data, email: '[erased]', ...('firstName' in data ? { firstName: '[erased]', surname: '[erased]' } : {}) } } as DomainEvent)
        : one;
    });
    await harness.append(erased);
    await harness.project();
    const rows = (await harness.all(assessmentInvitationsProjection.name)) as InvitationRowDocument[];
    expect(rows.map(({ id }) => id)).toEqual(['l1', 'l2', 'l3', 'l4', 'other', 's3', 's4']);
    // The same rows as the clear log folds to: the erased person was gone from it before the erasure.
    expect(rows).toEqual(rows.map(({ id }) => project(assessmentInvitationsProjection, history, id)));
    expect(['s1', 's2'].map((id) => project(assessmentInvitationsProjection, history, id))).toEqual([null, null]);
    expect(JSON.stringify(rows)).not.toContain('[erased]');
    const table = `"${harness.database.schema}"."rm_assessment_invitations"`;
    expect((await harness.database.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE json LIKE '%erased%' OR doc::text LIKE '%erased%'`)).rows[0]).toEqual({ n: 0 });
  });
});
