import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import openapiTS, { astToString } from 'openapi-typescript';
import { type Envelope, type HiringApi, hiringApi } from '../examples/integration/client.js';
import { applyEvent, readEvents } from '../examples/integration/events.js';
import { createAssessment, inviteCandidates } from '../examples/integration/invite.js';
import { emptySyncState, syncOnce } from '../examples/integration/sync.js';
import { verifyWebhook } from '../examples/integration/verify-webhook.js';
import { api, checkAnswer } from './support/client.js';
import { ALL_EVENTS, uniqueEmail, world } from './support/messaging-world.js';
import { type WebhookReceiver, startWebhookReceiver } from './support/messaging-receivers.js';
import { type RunningService, startService } from './support/service.js';

jest.setTimeout(90_000);

/** The integration in examples/, run against the service the way an integrator runs it. */
describe('examples/: a typed client generated from docs/openapi.json', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startService({ WEBHOOK_ALLOW_INSECURE: 'true' });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
  });

  /** The typed client, its answers checked against docs/openapi.json like every answer of the suites. */
  const typedClient = (credential: string): HiringApi => {
    const [key, secret] = credential.split(':') as [string, string];
    const client = hiringApi(service.baseUrl, key, secret);
    client.use({ onResponse: async ({ request, response }) => { await checkAnswer(request.method, request.url, response); } });
    return client;
  };

  const listedIds = async (credential: string): Promise<string[]> =>
    ((await api(service, credential).get('/v1/events?limit=100')).body.data as Envelope[]).map((envelope) => envelope.id);

  it('commits the client types exactly as openapi-typescript writes them from docs/openapi.json', async () => {
    const generated = astToString(await openapiTS(new URL('../docs/openapi.json', import.meta.url)));
    const committed = readFileSync(new URL('../examples/generated/hiring-api.ts', import.meta.url), 'utf8');
    // Run `npm run examples:types` after `npm run openapi:write`.
    expect(committed.slice(committed.indexOf('export'))).toBe(generated.slice(generated.indexOf('export')));
  });

  it('creates an assessment, invites with an Idempotency-Key, syncs results and candidates, and verifies webhooks', async () => {
    const w = world(service);
    const ws = await w.workspace({ url: receiver.url, events: ALL_EVENTS });
    const client = typedClient(ws.liveCredential);

    const assessment = await createAssessment(client, 'Example integration', ['numerical-reasoning', 'verbal-reasoning']);
    expect(assessment).toMatchObject({ name: 'Example integration', status: 'active' });

    const people = [{ email: uniqueEmail('ann'), firstName: 'Ann' }, { email: uniqueEmail('bo'), surname: 'Berg' }, { email: 'not an address' }];
    const first = await inviteCandidates(client, assessment.id, people);
    expect(first.entries.map((entry) => entry.status)).toEqual(['invited', 'invited', 'failed']);
    expect(first.replayed).toBe(false);
    const retried = await inviteCandidates(client, assessment.id, people, { idempotencyKey: first.idempotencyKey });
    expect(retried).toEqual({ ...first, replayed: true });

    // The world moves on inside the application: both register, Ann finishes everything, one unlock.
    const [ann, bo] = await Promise.all(first.entries.slice(0, 2).map((entry) => w.register({ invitationUrl: entry.invitationUrl })));
    if (!ann || !bo) throw new Error('registration failed');
    const annFirst = await w.complete(ann.candidateId, assessment.id, 'numerical-reasoning');
    await w.complete(ann.candidateId, assessment.id, 'verbal-reasoning');
    await w.complete(bo.candidateId, assessment.id, 'numerical-reasoning');

    // Two rows a page, so the loop follows meta.nextCursor to the end.
    const state = await syncOnce(client, emptySyncState(), { pageSize: 2, followAssessments: [assessment.id] });
    expect(state.results.size).toBe(3);
    // Both invited people registered; the refused address never has a row.
    expect([...(state.invitations.get(assessment.id)?.values() ?? [])].map((row) => [row.email, row.status, row.candidateId]).sort())
      .toEqual([[people[0]?.email, 'registered', ann.candidateId], [people[1]?.email, 'registered', bo.candidateId]].sort());
    const annCompletion = `${ann.candidateId}:${assessment.id}`;
    expect(state.completions.get(annCompletion)).toMatchObject({ unlocked: false, candidate: { id: ann.candidateId } });
    expect(state.completions.size).toBe(1);
    // The run's clock is the service's, less a margin: never ahead of the service.
    expect(Date.parse(state.updatedSince ?? '')).toBeLessThan(Date.now());
    expect([...state.candidates.keys()].sort()).toEqual([ann.candidateId, bo.candidateId].sort());
    expect(state.results.get(annFirst.resultId)).toMatchObject({ unlocked: false, scorePercentage: null, candidate: { id: ann.candidateId } });

    // A later unlock reaches the stored copy through `updated_since`; inclusive filters repeat rows, ids de-duplicate them.
    await w.unlock(annFirst.resultId);
    await syncOnce(client, state, { pageSize: 2, followAssessments: [assessment.id] });
    expect(state.results.size).toBe(3);
    expect(state.results.get(annFirst.resultId)).toMatchObject({ unlocked: true, scorePercentage: 75 });
    // The unlock moved the completion's updatedAt (not its completedAt): `updated_since` brought it again.
    const completion = state.completions.get(annCompletion);
    expect(completion?.results.find((result) => result.id === annFirst.resultId)).toMatchObject({ unlocked: true, scorePercentage: 75 });
    expect(Date.parse(completion?.updatedAt ?? '')).toBeGreaterThan(Date.parse(completion?.completedAt ?? ''));
    const everything = (await api(service, ws.liveCredential).get('/v1/results?limit=100')).body.data as { id: string }[];
    expect([...state.results.keys()].sort()).toEqual(everything.map((row) => row.id).sort());

    const aboutAnnFirst = (event: string) => (request: { body?: any }) =>
      request.body?.event === event && request.body.workspaceId === ws.id && request.body.data.result.id === annFirst.resultId;
    const hook = await receiver.waitFor((requests) => ['testCompleted', 'resultUnlocked'].every((event) => requests.some(aboutAnnFirst(event))));
    const unlocked = hook.find(aboutAnnFirst('resultUnlocked'));
    const completed = hook.find(aboutAnnFirst('testCompleted'));
    if (!unlocked || !completed || !ws.secret) throw new Error('no testCompleted or resultUnlocked delivery');
    const signature = unlocked.headers['x-webhook-signature'] as string;
    expect(verifyWebhook(unlocked.raw, signature, ws.secret)).toMatchObject({ event: 'resultUnlocked', data: { result: { id: annFirst.resultId, unlocked: true } } });
    expect(verifyWebhook(unlocked.raw.replace('"unlocked":true', '"unlocked":false'), signature, ws.secret)).toBeNull();
    expect(verifyWebhook(unlocked.raw, signature, 'another-secret')).toBeNull();
    expect(verifyWebhook(unlocked.raw, signature, ws.secret, Math.floor(Date.now() / 1000) + 3600)).toBeNull();

    // Webhooks are not ordered, and share their ids with the feed: the unlock handled before the locked
    // testCompleted leaves the copy unlocked, and the feed then hands over only what no webhook brought.
    const unlockedEnvelope = verifyWebhook(unlocked.raw, signature, ws.secret);
    const completedEnvelope = verifyWebhook(completed.raw, completed.headers['x-webhook-signature'] as string, ws.secret);
    if (!unlockedEnvelope || !completedEnvelope) throw new Error('a delivery failed verification');
    const copy = emptySyncState();
    expect(await applyEvent(copy, unlockedEnvelope)).toBe(true);
    expect(await applyEvent(copy, completedEnvelope)).toBe(true);
    expect(await applyEvent(copy, completedEnvelope)).toBe(false);
    expect(copy.results.get(annFirst.resultId)).toMatchObject({ unlocked: true, scorePercentage: 75 });
    const handed: string[] = [];
    await readEvents(client, copy, { onEvent: (envelope) => { handed.push(envelope.id); } });
    expect(handed).toEqual((await listedIds(ws.liveCredential)).filter((id) => id !== unlockedEnvelope.id && id !== completedEnvelope.id));
    expect(copy.results.get(annFirst.resultId)).toMatchObject({ unlocked: true, scorePercentage: 75 });
  });

  it('without a webhook, syncs from the events feed: every envelope once, in order, then from the stored cursor only what is new', async () => {
    const w = world(service);
    const ws = await w.workspace();
    const client = typedClient(ws.liveCredential);
    const seen: Envelope[] = [];
    const onEvent = (envelope: Envelope) => { seen.push(envelope); };
    const names = () => seen.map((envelope) => envelope.event);

    const assessment = await createAssessment(client, 'Feed fallback', ['numerical-reasoning', 'verbal-reasoning']);
    const [cyInvitation] = (await inviteCandidates(client, assessment.id, [{ email: uniqueEmail('cy'), firstName: 'Cy' }])).entries;
    const cy = await w.register({ invitationUrl: cyInvitation?.invitationUrl });
    await w.start(cy.candidateId, assessment.id);
    const numerical = await w.complete(cy.candidateId, assessment.id, 'numerical-reasoning');
    await w.complete(cy.candidateId, assessment.id, 'verbal-reasoning');
    await w.unlock(numerical.resultId);

    // Two envelopes a page: the loop reads on while meta.hasMore.
    const state = await syncOnce(client, emptySyncState(), { pageSize: 2, onEvent });
    expect(names()).toEqual(['candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked']);
    expect(seen.map((envelope) => envelope.id)).toEqual(await listedIds(ws.liveCredential));
    // The testCompleted envelope stays as delivered (locked); the stored result has the unlock.
    expect(seen[3]).toMatchObject({ data: { result: { id: numerical.resultId, unlocked: false, scorePercentage: null } } });
    expect(seen[6]).toMatchObject({ data: { result: { id: numerical.resultId, unlocked: true, scorePercentage: 75 } } });
    expect(state.results.get(numerical.resultId)).toMatchObject({ unlocked: true, scorePercentage: 75, candidate: { id: cy.candidateId } });
    expect(state.appliedEvents.size).toBe(7);

    // Polled again from the stored cursor: nothing new.
    seen.length = 0;
    await syncOnce(client, state, { pageSize: 2, onEvent });
    expect(seen).toEqual([]);
    expect(state.eventsCursor).toEqual(expect.any(String));

    // What happens afterwards is picked up from there, and only that.
    const [dyInvitation] = (await inviteCandidates(client, assessment.id, [{ email: uniqueEmail('dy'), firstName: 'Dy' }])).entries;
    const dy = await w.register({ invitationUrl: dyInvitation?.invitationUrl });
    const dyResult = await w.complete(dy.candidateId, assessment.id, 'numerical-reasoning');
    await syncOnce(client, state, { pageSize: 2, onEvent });
    expect(names()).toEqual(['candidateInvited', 'candidateCreated', 'assessmentStarted', 'testCompleted']);
    expect(seen.map((envelope) => envelope.id)).toEqual((await listedIds(ws.liveCredential)).slice(7));
    expect(state.results.get(dyResult.resultId)).toMatchObject({ unlocked: false, scorePercentage: null, candidate: { id: dy.candidateId } });
  });
});
