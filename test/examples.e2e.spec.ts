import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import openapiTS, { astToString } from 'openapi-typescript';
import { hiringApi } from '../examples/integration/client.js';
import { createAssessment, inviteCandidates } from '../examples/integration/invite.js';
import { emptySyncState, syncOnce } from '../examples/integration/sync.js';
import { verifyWebhook } from '../examples/integration/verify-webhook.js';
import { api } from './support/client.js';
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

  it('commits the client types exactly as openapi-typescript writes them from docs/openapi.json', async () => {
    const generated = astToString(await openapiTS(new URL('../docs/openapi.json', import.meta.url)));
    const committed = readFileSync(new URL('../examples/generated/hiring-api.ts', import.meta.url), 'utf8');
    // Run `npm run examples:types` after `npm run openapi:write`.
    expect(committed.slice(committed.indexOf('export'))).toBe(generated.slice(generated.indexOf('export')));
  });

  it('creates an assessment, invites with an Idempotency-Key, syncs results and candidates, and verifies webhooks', async () => {
    const w = world(service);
    const ws = await w.workspace({ url: receiver.url, events: ALL_EVENTS });
    const [key, secret] = ws.liveCredential.split(':') as [string, string];
    const client = hiringApi(service.baseUrl, key, secret);

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
    const state = await syncOnce(client, emptySyncState(), { pageSize: 2 });
    expect(state.results.size).toBe(3);
    expect([...state.candidates.keys()].sort()).toEqual([ann.candidateId, bo.candidateId].sort());
    expect(state.results.get(annFirst.resultId)).toMatchObject({ unlocked: false, scorePercentage: null, candidate: { id: ann.candidateId } });

    // A later unlock reaches the stored copy through `updated_since`; inclusive filters repeat rows, ids de-duplicate them.
    await w.unlock(annFirst.resultId);
    await syncOnce(client, state, { pageSize: 2 });
    expect(state.results.size).toBe(3);
    expect(state.results.get(annFirst.resultId)).toMatchObject({ unlocked: true, scorePercentage: 75 });
    const everything = (await api(service, ws.liveCredential).get('/v1/results?limit=100')).body.data as { id: string }[];
    expect([...state.results.keys()].sort()).toEqual(everything.map((row) => row.id).sort());

    const hook = await receiver.waitFor((requests) => requests.some((request) => request.body?.event === 'resultUnlocked' && request.body.workspaceId === ws.id));
    const unlocked = hook.find((request) => request.body?.event === 'resultUnlocked' && request.body.workspaceId === ws.id);
    if (!unlocked || !ws.secret) throw new Error('no resultUnlocked delivery');
    const signature = unlocked.headers['x-webhook-signature'] as string;
    expect(verifyWebhook(unlocked.raw, signature, ws.secret)).toMatchObject({ event: 'resultUnlocked', data: { result: { id: annFirst.resultId, unlocked: true } } });
    expect(verifyWebhook(unlocked.raw.replace('"unlocked":true', '"unlocked":false'), signature, ws.secret)).toBeNull();
    expect(verifyWebhook(unlocked.raw, signature, 'another-secret')).toBeNull();
    expect(verifyWebhook(unlocked.raw, signature, ws.secret, Math.floor(Date.now() / 1000) + 3600)).toBeNull();
  });
});
