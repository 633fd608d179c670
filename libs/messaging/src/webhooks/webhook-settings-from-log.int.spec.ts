import { workspaceStream } from '#domain';
import type { PostgresEventStore } from '#event-store';
import { SecretBox } from '#platform';
import { TestClock } from '../test-support/clock.js';
import { appendEvents, openEventStore } from '../test-support/event-store.js';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres.js';
import { webhookSettingsFromLog } from './webhook-settings-from-log.js';

const time = (minute: number): string => new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString();
const invited = (workspaceId: string) => ({
  type: 'CandidateInvited', data: { workspaceId, candidateId: 'c1', mode: 'live', assessmentId: 'a1', assessmentName: 'A', email: 'a@b.example', firstName: 'A', surname: 'B', invitationToken: 't' },
});

describe('webhook settings read from the log (real PostgreSQL event store)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  const box = new SecretBox('settings-from-log');

  beforeAll(async () => {
    db = await createTestDatabase('settings_from_log');
    store = await openEventStore(db);
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  const created = (workspaceId: string) => appendEvents(store, workspaceStream(workspaceId), [
    [{ type: 'WorkspaceCreated', data: { workspaceId, name: 'W', freeAllowance: 3, createdAt: time(0) } }, time(0)],
  ]);
  const configured = (workspaceId: string, url: string, secret: string, minute: number) => appendEvents(store, workspaceStream(workspaceId), [
    [{ type: 'WebhookConfigured', data: { workspaceId, url, events: ['candidateInvited'], encryptedSecret: box.seal(secret), configuredAt: time(minute) } }, time(minute)],
  ]);

  it('answers the settings as the log has them at each call, secrets opened, the previous one within a day of a rotation', async () => {
    const settings = webhookSettingsFromLog({ eventStore: store, secretBox: box, clock: new TestClock(time(30)) });
    expect(await settings.getSigningSecrets('w-none')).toBeNull();
    await created('w1');
    expect(await settings.getSigningSecrets('w1')).toBeNull();
    await configured('w1', 'https://one.example/in', 'whsec_one', 1);
    expect(await settings.getSigningSecrets('w1')).toEqual({ url: 'https://one.example/in', events: ['candidateInvited'], enabled: true, secrets: ['whsec_one'], enabledAt: time(1) });
    // Appended by "another process" after the first read: the next call folds it on.
    await appendEvents(store, workspaceStream('w1'), [[{
      type: 'WebhookSecretRotated', data: { workspaceId: 'w1', encryptedSecret: box.seal('whsec_two'), previousEncryptedSecret: box.seal('whsec_one'), rotatedAt: time(20) },
    }, time(20)]]);
    expect((await settings.getSigningSecrets('w1'))?.secrets).toEqual(['whsec_two', 'whsec_one']);
    const dayLater = webhookSettingsFromLog({ eventStore: store, secretBox: box, clock: new TestClock(new Date(Date.parse(time(21)) + 24 * 3600_000).toISOString()) });
    expect((await dayLater.getSigningSecrets('w1'))?.secrets).toEqual(['whsec_two']);
  });

  it('tells whether a write makes a webhook: another process\'s change within a second may be missed, this process\'s never', async () => {
    const settings = webhookSettingsFromLog({ eventStore: store, secretBox: box, clock: new TestClock(time(30)) });
    await created('w2');
    expect(await settings.deliversWebhooks([invited('w2')])).toBe(false);
    // Another process configures the webhook: the state read a moment ago still answers.
    await configured('w2', 'https://two.example/in', 'whsec_2', 2);
    expect(await settings.deliversWebhooks([invited('w2')])).toBe(false);
    // This process's own write is seen at once.
    settings.written([{ type: 'WebhookConfigured', data: { workspaceId: 'w2' } }]);
    expect(await settings.deliversWebhooks([invited('w2')])).toBe(true);
    expect(await settings.deliversWebhooks([{ type: 'CandidateCreated', data: { workspaceId: 'w2' } }, { type: 'WorkspaceVerified', data: { workspaceId: 'w2' } }])).toBe(false);
  });

  it('refuses to answer from a workspace holding an event this version cannot read', async () => {
    await created('w3');
    await store.appendToStream(workspaceStream('w3'), [{ id: crypto.randomUUID(), type: 'WorkspaceRenamedInV9', data: { workspaceId: 'w3' }, metadata: { correlationId: 'c', causationId: null, actor: 'system', requestId: 'r', time: time(3) } }], { expectedRevision: 'any' });
    const settings = webhookSettingsFromLog({ eventStore: store, secretBox: box, clock: new TestClock(time(30)) });
    await expect(settings.getSigningSecrets('w3')).rejects.toThrow(/WorkspaceRenamedInV9, unknown to this version/);
  });
});
