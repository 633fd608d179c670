import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceivedWebhook } from '../support/messaging-receivers.js';
import { checkBilling, checkSandboxAllowance } from './support/checks-billing.js';
import { checkCompletionsUpdatedAt } from './support/checks-completions.js';
import { checkFeed } from './support/checks-feed.js';
import { Redis } from 'ioredis';
import { REDIS_URL } from '#messaging/test-support/redis.js';
import { checkRedisErasure, erasedPeople } from './support/checks-erasure.js';
import { checkIdempotency } from './support/checks-idempotency.js';
import { checkInvitationUniqueness, checkNothingAfterDeletion, checkOneCandidatePerAddress, checkStandingInvitationsReadable } from './support/checks-log.js';
import { checkWebhooks } from './support/checks-side-effects.js';
import { Findings } from './support/findings.js';
import { Knowledge } from './support/knowledge.js';
import { ERASED, type LoggedEvent, foldLog } from './support/log.js';
import { Recorder } from './support/recorder.js';
import { COMPLETIONS_BY_UPDATE, compareSnapshots } from './support/snapshot.js';
import type { WorkspaceWorld } from './support/world.js';

/* The checks of the tier, fed logs and answers that break (or keep) each invariant: a check that cannot fail is a defect. */

let position = 0n;
const event = (type: string, streamId: string, data: Record<string, unknown>): LoggedEvent =>
  ({ position: ++position, id: `ev-${position}`, streamId, revision: 0, type, data: { workspaceId: 'ws', ...data }, metadata: {} });
const invited = (invitationId: string, email: string, mode = 'live', assessmentId = 'a1', invitedAt = '2026-10-01T00:00:00.000Z') =>
  event('CandidateInvited', `assessment-${assessmentId}`, { assessmentId, invitationId, email, mode, invitationToken: `t-${invitationId}`, invitedAt });
const created = (candidateId: string, email: string, mode = 'live') =>
  event('CandidateCreated', `candidate-${candidateId}`, { candidateId, email, mode, firstName: 'F', surname: 'S' });
const unlocked = (candidateId: string, resultId: string, charged: boolean) => [
  event('TestCompleted', `candidate-${candidateId}`, { candidateId, resultId }),
  event('ResultUnlocked', `candidate-${candidateId}`, { candidateId, resultId, charged, unlockedAt: 't' }),
];
const workspace = { index: 0, id: 'ws', freeAllowance: 1 } as WorkspaceWorld;
const invariants = (findings: Findings) => [...new Set(findings.items.map((finding) => finding.invariant))];
const run = (check: (findings: Findings) => void): string[] => {
  const findings = new Findings();
  check(findings);
  return invariants(findings);
};

describe('the concurrency tier\'s checks', () => {
  it('see two standing invitations of one address, but not one withdrawn before the next', () => {
    expect(run((f) => checkInvitationUniqueness(foldLog([invited('i1', 'x@e.com'), invited('i2', 'x@e.com')]), f))).toEqual(['at most one standing invitation per address and assessment']);
    const withdrawn = event('InvitationWithdrawn', 'assessment-a1', { assessmentId: 'a1', invitationId: 'i1', email: 'x@e.com' });
    expect(run((f) => checkInvitationUniqueness(foldLog([invited('i1', 'x@e.com'), withdrawn, invited('i2', 'x@e.com')]), f))).toEqual([]);
  });

  it('see a standing invitation erased, events after a deletion, and two people for one address', () => {
    const log = foldLog([
      invited('i1', ERASED), created('c1', 'x@e.com'), created('c2', 'x@e.com', 'sandbox'),
      event('CandidateDeleted', 'candidate-c3', { candidateId: 'c3' }), created('c3', 'y@e.com', 'sandbox'),
      event('CandidateDeleted', 'candidate-c3', { candidateId: 'c3' }), event('CandidateRegistered', 'candidate-c3', { candidateId: 'c3', assessmentId: 'a1' }),
    ]);
    expect(run((f) => checkStandingInvitationsReadable(log, new Knowledge(), f))).toEqual(['a standing invitation keeps its personal data']);
    expect(run((f) => checkNothingAfterDeletion(log, f))).toEqual(['a deleted candidate\'s stream ends with the deletion']);
    expect(run((f) => checkOneCandidatePerAddress(log, f))).toEqual(['one candidate per workspace and address (whatever the mode) among those not deleted']);
  });

  it('see billing out of order, a test candidate billed and a billing list that is not the log\'s', () => {
    const good = foldLog([
      created('c1', 'a@e.com'), created('c2', 'b@e.com'), ...unlocked('c1', 'r1', false), ...unlocked('c2', 'r2', true),
      event('FreeAllowanceUsed', 'workspace-ws', { candidateId: 'c1', resultId: 'r1' }), event('CandidateCharged', 'workspace-ws', { candidateId: 'c2', resultId: 'r2' }),
    ]);
    const billing = { freeAllowance: 1, billedCandidates: [{ candidateId: 'c2', resultId: 'r2', chargedAt: 't' }] };
    const knowledge = new Knowledge();
    knowledge.acknowledged.push({ kind: 'unlocked', workspaceId: 'ws', candidateId: 'c2', resultId: 'r2', unlockedAt: 't', charged: true });
    expect(run((f) => checkBilling(workspace, billing, good, knowledge, f))).toEqual([]);
    expect(run((f) => checkBilling(workspace, { ...billing, billedCandidates: [] }, good, knowledge, f))).toContain('the billing list is the charges of the log');
    const sandboxCharged = foldLog([created('c1', 'a@e.com', 'sandbox'), ...unlocked('c1', 'r1', true), event('CandidateCharged', 'workspace-ws', { candidateId: 'c1', resultId: 'r1' })]);
    expect(run((f) => checkBilling(workspace, { freeAllowance: 1, billedCandidates: [] }, sandboxCharged, new Knowledge(), f)))
      .toEqual(expect.arrayContaining(['the first freeAllowance live candidates unlocked are free, every later one charged', 'test candidates are never billed']));
  });

  it('see 26 sandbox invitations within 30 days, not 26 over two months', () => {
    const day = (n: number) => new Date(Date.UTC(2026, 9, 1 + n)).toISOString();
    const places = event('SandboxPlacesUsed', 'workspace-ws', { places: 26 });
    const crowded = foldLog([...Array.from({ length: 26 }, (_, n) => invited(`i${n}`, `p${n}@e.com`, 'sandbox', 'a1', day(0))), places]);
    expect(run((f) => checkSandboxAllowance(workspace, crowded, null, f))).toEqual(['the sandbox allowance is never exceeded']);
    const spread = foldLog([...Array.from({ length: 26 }, (_, n) => invited(`i${n}`, `p${n}@e.com`, 'sandbox', 'a1', day(n < 13 ? 0 : 40))), places]);
    expect(run((f) => checkSandboxAllowance(workspace, spread, null, f))).toEqual([]);
  });

  it('see a key answered twice as an original, unless an erasure came between, and a replay of another answer', () => {
    const use = (startedAt: number, replayed: boolean, answer: unknown) => ({
      workspaceId: 'ws', key: 'k', mode: 'live' as const, path: '/p', body: { candidates: [] }, addresses: ['x@e.com'], startedAt, finishedAt: startedAt + 5, status: 200, replayed, answer,
    });
    const knowledge = new Knowledge();
    knowledge.idempotent.push(use(0, false, { n: 1 }), use(10, false, { n: 2 }), use(20, true, { n: 3 }));
    expect(run((f) => checkIdempotency(knowledge, f))).toEqual(['an Idempotency-Key makes one original answer', 'a replay answers the original response']);
    knowledge.idempotent.pop();
    knowledge.deletions.push({ candidateId: 'c', workspaceId: 'ws', email: 'x@e.com', startedAt: 6, finishedAt: 8, status: 204 });
    expect(run((f) => checkIdempotency(knowledge, f))).toEqual([]);
    // A deletion that ended within the service's clock margin before the earlier original began counts too, one long before does not.
    const late = new Knowledge();
    late.idempotent.push(use(5_000, false, { n: 1 }), use(9_000, false, { n: 2 }));
    late.deletions.push({ candidateId: 'c', workspaceId: 'ws', email: 'x@e.com', startedAt: 4_000, finishedAt: 4_400, status: 204 });
    expect(run((f) => checkIdempotency(late, f))).toEqual([]);
    late.deletions[0] = { candidateId: 'c', workspaceId: 'ws', email: 'x@e.com', startedAt: 1_000, finishedAt: 1_400, status: 204 };
    expect(run((f) => checkIdempotency(late, f))).toEqual(['an Idempotency-Key makes one original answer']);
  });

  it('see a webhook that never arrived, and count duplicates without failing', () => {
    const log = foldLog([created('c1', 'a@e.com'), created('c2', 'b@e.com')]);
    const delivery = (id: string) => ({ body: { id, workspaceId: 'ws', event: 'candidateCreated' } }) as unknown as ReceivedWebhook;
    const findings = new Findings();
    checkWebhooks(log, [delivery('ev-' + String(log.events[0]?.position)), delivery('ev-' + String(log.events[0]?.position))], findings);
    expect(invariants(findings)).toEqual(['every event\'s webhook is delivered']);
    expect(findings.notes.join()).toContain('1 events delivered more than once');
  });

  it('see a feed that misses an event, lists a deleted person\'s, is out of order or shows another body than delivered', () => {
    const log = foldLog([
      invited('i1', 'a@e.com'), created('c1', 'a@e.com'), invited('i2', 'gone@e.com', 'sandbox'), created('c2', 'gone@e.com', 'sandbox'),
      event('CandidateDeleted', 'candidate-c2', { candidateId: 'c2', email: 'gone@e.com', mode: 'sandbox', assessmentIds: [], resultIds: [] }),
      event('AssessmentCandidateRemoved', 'assessment-a1', { assessmentId: 'a1', candidateId: 'c2', email: 'gone@e.com', mode: 'sandbox', invitationId: 'i2' }),
    ]);
    const [i1, c1, i2, c2] = log.events.map((logged) => ({ id: logged.id, event: logged.type, workspaceId: 'ws' }));
    const feedOf = (live: unknown[], sandbox: unknown[]) => new Map([
      ['0:live:/v1/events', { status: 200, body: { data: live } }], ['0:sandbox:/v1/events', { status: 200, body: { data: sandbox } }],
    ]);
    const delivered = [i1, c1].map((body) => ({ body }) as unknown as ReceivedWebhook);
    expect(run((f) => checkFeed(workspace, feedOf([i1, c1], []), log, delivered, f))).toEqual([]);
    const order = 'the events feed lists the log\'s events, in its order, but a deleted person\'s';
    expect(run((f) => checkFeed(workspace, feedOf([i1], []), log, delivered, f))).toEqual([order]);
    expect(run((f) => checkFeed(workspace, feedOf([c1, i1], []), log, delivered, f))).toEqual([order]);
    expect(run((f) => checkFeed(workspace, feedOf([i1, c1], [i2, c2]), log, delivered, f))).toEqual([order]);
    expect(run((f) => checkFeed(workspace, feedOf([i1, { ...c1, data: 'other' }], []), log, delivered, f))).toEqual(['the feed\'s envelope is the body its webhook delivered']);
  });

  it('see a completion whose updatedAt is not the later of its completedAt and its latest unlock, and updated_since out of order', () => {
    const time = (minute: number) => new Date(Date.UTC(2026, 9, 1, 9, minute)).toISOString();
    const finished = (candidateId: string, minute: number) => event('AssessmentCompleted', `candidate-${candidateId}`, { candidateId, assessmentId: 'a1', completedAt: time(minute) });
    const unlockedAt = (candidateId: string, resultId: string, minute: number) =>
      event('ResultUnlocked', `candidate-${candidateId}`, { candidateId, assessmentId: 'a1', resultId, unlockedAt: time(minute), charged: false });
    // c1 finished first and was unlocked last (once before finishing, twice after: the first unlock of r2 counts); c2 stays locked.
    const log = foldLog([
      created('c1', 'a@e.com'), created('c2', 'b@e.com'), unlockedAt('c1', 'r1', 1), finished('c1', 2), finished('c2', 3),
      unlockedAt('c1', 'r2', 5), unlockedAt('c1', 'r2', 9),
    ]);
    const c1 = { id: 'c1:a1', completedAt: time(2), updatedAt: time(5) };
    const c2 = { id: 'c2:a1', completedAt: time(3), updatedAt: time(3) };
    const lists = (byCompletion: unknown[], byUpdate: unknown[]) => new Map([
      ['0:live:/v1/completions', { status: 200, body: { data: byCompletion } }], [`0:live:${COMPLETIONS_BY_UPDATE}`, { status: 200, body: { data: byUpdate } }],
      ['0:sandbox:/v1/completions', { status: 200, body: { data: [] } }], [`0:sandbox:${COMPLETIONS_BY_UPDATE}`, { status: 200, body: { data: [] } }],
    ]);
    expect(run((f) => checkCompletionsUpdatedAt(workspace, lists([c2, c1], [c2, c1]), log, f))).toEqual([]);
    const wrongTime = 'a completion\'s updatedAt is the later of its completedAt and its latest unlock in the log';
    expect(run((f) => checkCompletionsUpdatedAt(workspace, lists([c2, { ...c1, updatedAt: time(2) }], [c2, c1]), log, f))).toEqual([wrongTime]);
    expect(run((f) => checkCompletionsUpdatedAt(workspace, lists([c2, c1], [c2, { ...c1, updatedAt: time(9) }]), log, f))).toEqual([wrongTime]);
    const byUpdate = 'updated_since lists the log\'s completions by updatedAt';
    expect(run((f) => checkCompletionsUpdatedAt(workspace, lists([c2, c1], [c1, c2]), log, f))).toEqual([byUpdate]);
    expect(run((f) => checkCompletionsUpdatedAt(workspace, lists([c2, c1], [c2]), log, f))).toEqual([byUpdate]);
    // A test candidate's completion listed to a live key is not the log's (and the sandbox lists miss it).
    const sandboxLog = foldLog([created('c1', 'a@e.com', 'sandbox'), created('c2', 'b@e.com'), finished('c1', 2), finished('c2', 3)]);
    expect(run((f) => checkCompletionsUpdatedAt(workspace, lists([c2, { ...c1, updatedAt: time(2) }], [c2]), sandboxLog, f))).toEqual([wrongTime, byUpdate]);
  });

  it('see the addresses of deleted people nobody holds again, with the names their invitations sent', () => {
    const knowledge = new Knowledge();
    for (const [token, email] of [['t-i1', 'gone@e.com'], ['t-i2', 'back@e.com']]) {
      knowledge.rememberLink({ token, url: token, workspaceId: 'ws', assessmentId: 'a1', email, mode: 'sandbox', person: { firstName: `F${token}`, surname: `S${token}` } });
    }
    const deleted = (candidateId: string, email: string) => [created(candidateId, email, 'sandbox'), event('CandidateDeleted', `candidate-${candidateId}`, { candidateId })];
    const log = foldLog([...deleted('c1', 'gone@e.com'), ...deleted('c2', 'back@e.com'), invited('i3', 'back@e.com', 'sandbox')]);
    expect(erasedPeople(log, knowledge).map((needle) => needle.text).sort()).toEqual(['Ft-i1', 'St-i1', 'gone@e.com']);
  });

  it('see a deleted person\'s address in an idempotency record, unless every request of its key came after the deletion', async () => {
    const redis = new Redis(REDIS_URL);
    const workspaceId = `ws-check-${Date.now().toString(36)}`;
    try {
      const needle = { workspaceId, address: 'gone@e.com', text: 'gone@e.com', what: 'the address' as const };
      const knowledge = new Knowledge();
      knowledge.deletions.push({ candidateId: 'c1', workspaceId, email: 'gone@e.com', startedAt: 100, finishedAt: 200, status: 204 });
      const use = (key: string, startedAt: number) => ({
        workspaceId, key, mode: 'sandbox' as const, path: '/v1/x', body: {}, addresses: ['gone@e.com'], startedAt, finishedAt: startedAt + 10, status: 200, replayed: false, answer: null,
      });
      knowledge.idempotent.push(use('before', 150), use('after', 300));
      for (const key of ['before', 'after']) await redis.hset(`idem:${workspaceId}:${key}`, 'body', '{"data":[{"email":"gone@e.com"}]}');
      const findings = new Findings();
      await checkRedisErasure('no-queue-here', [workspaceId], [needle], knowledge, findings);
      expect(findings.items.map((finding) => finding.detail.split(' holds')[0])).toEqual([`idem:${workspaceId}:before`]);
    } finally {
      await redis.del(`idem:${workspaceId}:before`, `idem:${workspaceId}:after`);
      redis.disconnect();
    }
  });

  it('see read models that differ after a rebuild', () => {
    const findings = new Findings();
    compareSnapshots(new Map([['0:live:/v1/me', { status: 200, body: { a: [1, 2] } }]]), new Map([['0:live:/v1/me', { status: 200, body: { a: [1, 3] } }]]), findings);
    expect(findings.items.map((finding) => finding.detail)).toEqual(['0:live:/v1/me: /body/a/1 was 2 before the rebuild, 3 after']);
  });

  it('record a 5xx, an unexpected refusal and a dropped connection, and accept an expected refusal', async () => {
    const server: Server = createServer((request, response) => {
      if (request.url === '/drop') request.socket.destroy();
      else response.writeHead(Number(request.url?.slice(1)), { 'content-type': 'application/json' }).end('{"error":{"code":"nope","message":"m"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const findings = new Findings();
      const recorder = new Recorder(findings);
      await recorder.call('a', 'GET', `${base}/500`);
      await recorder.call('b', 'GET', `${base}/409`, { refusals: ['409:other'] });
      await recorder.call('c', 'GET', `${base}/409`, { refusals: ['409:nope'] });
      await recorder.call('d', 'GET', `${base}/drop`);
      expect(invariants(findings)).toEqual(['no 5xx answer', 'only the refusals an operation can meet', 'no dropped connection']);
      expect(recorder.summary()).toContain('409 nope ×1');
    } finally {
      server.close();
    }
  });
});
