import { jest } from '@jest/globals';
import type { Page } from 'playwright-core';
import { eventually, startWebhookReceiver, type WebhookReceiver } from './support/messaging-receivers.js';
import { flash, idInPath, signIn, startPagesWorld, submit, type PagesWorld } from './support/pages.js';
import { request } from './support/client.js';

jest.setTimeout(240_000);

/**
 * A whole demo given from a browser, as demo staff give it: the internal pages for everything the
 * application does, the public API (with the key the pages issued) for what an integrator does.
 */
describe('internal pages: a demo from the browser (e2e)', () => {
  let world: PagesWorld;
  let receiver: WebhookReceiver;
  let page: Page;
  /** What one step hands the next: the suite is one demo, in order. */
  const state = { workspaceId: '', credential: '', assessmentId: '', candidateId: '', email: `ada-${Date.now().toString(36)}@example.com` };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    world = await startPagesWorld({ WEBHOOK_ALLOW_INSECURE: 'true', SIMULATED_CLOCK: 'true' });
    ({ page } = world);
  }, 180_000);

  afterAll(async () => {
    await world?.close();
    await receiver?.close();
  });

  const at = (path: string) => world.at(path);
  const look = (name: string, options?: { phone?: boolean }) => world.look(name, options);

  it('signs in, creates and verifies a workspace, issues a key and saves a webhook', async () => {
    // The start banner says where the pages are.
    expect(world.service.output()).toContain(`Web pages         http://localhost:${new URL(world.service.internalUrl).port}/`);
    await page.goto(at('/sign-in'));
    await look('sign-in');
    await signIn(page, world.service);
    expect(new URL(page.url()).pathname).toBe('/');
    await expect(page.locator('h1').textContent()).resolves.toBe('Workspaces');

    await page.fill('#workspace-name', 'Acme Recruiting');
    await page.fill('#free-allowance', '1');
    await submit(page, 'button:has-text("Create workspace")');
    expect(await flash(page)).toContain('Workspace “Acme Recruiting” created');
    const workspaceId = idInPath(page);
    expect(workspaceId).toMatch(/\S/);
    await expect(page.locator('.page-actions .badge').first().textContent()).resolves.toBe('unverified');

    await submit(page, 'button:has-text("Verify workspace")');
    expect(await flash(page)).toContain('is verified');
    await expect(page.locator('.page-actions .badge').first().textContent()).resolves.toBe('verified');

    await page.check('input[name=mode][value=live]');
    await submit(page, 'button:has-text("Create key")');
    const key = (await page.locator('#issued-key-value').textContent()) ?? '';
    const secret = (await page.locator('#issued-secret-value').textContent()) ?? '';
    expect(await page.locator('#issued-curl').textContent()).toBe(`curl -H "Authorization: Bearer ${key}:${secret}" http://localhost:${new URL(world.service.baseUrl).port}/v1/me`);
    await look('workspace-new-key', { phone: false });
    state.workspaceId = workspaceId;
    state.credential = `${key}:${secret}`;
    const me = await world.publicApi(`${key}:${secret}`)('/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ workspace: { id: workspaceId, name: 'Acme Recruiting' }, mode: 'live' });
    // Shown once: the next visit lists the key, never its secret.
    await page.goto(at(`/workspaces/${workspaceId}`));
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('.card:has(#api-keys)').textContent()).toContain(key);

    await page.goto(at(`/workspaces/${workspaceId}/webhook`));
    await page.fill('#webhook-url', receiver.url);
    await submit(page, 'button:has-text("Save webhook")');
    expect(await flash(page)).toContain('Webhook saved and enabled');
    await expect(page.locator('.card:has(#webhook-settings) .card-head .badge').textContent()).resolves.toBe('enabled');
  });

  it('invites through the public API, registers from the e-mail, finishes every test and unlocks: the public API shows the result', async () => {
    const call = world.publicApi(state.credential);
    const created = await call('/v1/assessments', { name: 'Backend engineer', tests: ['numerical-reasoning', 'verbal-reasoning'] });
    expect(created.status).toBe(201);
    state.assessmentId = created.body.data.id;
    const invited = await call(`/v1/assessments/${state.assessmentId}/invitations`, { candidates: [{ email: state.email, firstName: 'Ada', surname: 'Lovelace' }] });
    expect(invited.body.meta).toMatchObject({ invited: 1 });

    // The e-mail is sent by a worker: the outbox shows it once it is there.
    await eventually(async () => {
      await page.goto(at(`/emails?to=${encodeURIComponent(state.email)}`));
      return page.locator('.email a[href^="/invitations/"]').count();
    }, (count) => count === 1, 30_000, 'the invitation e-mail in the outbox');
    expect(await page.locator('.email h3').textContent()).toContain('Backend engineer');
    await look('emails');
    await submit(page, '.email a[href^="/invitations/"]');
    await expect(page.locator('main').textContent()).resolves.toContain(state.email);
    await look('invitation');
    await submit(page, 'button:has-text("Accept and register")');
    expect(await flash(page)).toContain('Registered');
    state.candidateId = idInPath(page);

    await submit(page, 'button:has-text("Start the assessment")');
    expect(await flash(page)).toContain('Assessment started');
    // First test with the defaults, the second with "random realistic scores".
    await submit(page, 'button:has-text("Finish test")');
    expect(await flash(page)).toContain('Test numerical-reasoning finished');
    await page.click('[data-random-scores]');
    const correct = Number(await page.inputValue('input[name=questionsCorrect]'));
    const total = Number(await page.inputValue('input[name=questionsTotal]'));
    expect(Number(await page.inputValue('input[name=questionsIncorrect]'))).toBe(Number(await page.inputValue('input[name=questionsAnswered]')) - correct);
    await submit(page, 'button:has-text("Finish test")');
    expect(await flash(page)).toContain('the assessment is completed');

    // Free allowance 1: the first live candidate's unlock is free, the second result costs nothing more.
    await submit(page, 'button:has-text("Unlock result")');
    expect(await flash(page)).toContain('charged: false');
    await submit(page, 'button:has-text("Unlock result")');
    expect(await flash(page)).toContain('unlocked');
    await look('candidate');

    const answer = await world.publicApi(state.credential)(`/v1/candidates/${state.candidateId}`);
    expect(answer.status).toBe(200);
    const shown = JSON.parse((await page.locator('pre.json').first().textContent()) ?? 'null');
    expect(shown).toEqual(answer.body);
    const [assessment] = answer.body.data.assessments;
    expect(assessment).toMatchObject({ id: state.assessmentId, status: 'completed', unlocked: true });
    expect(assessment.results).toHaveLength(2);
    expect(assessment.results[1]).toMatchObject({ testSlug: 'verbal-reasoning', unlocked: true, questionsCorrect: correct, questionsTotal: total });

    await page.goto(at(`/assessments/${state.assessmentId}`));
    await expect(page.locator('.card:has(#candidates) tbody tr').count()).resolves.toBe(1);
    await look('assessment');
  });

  it('resends a webhook delivery from the delivery log', async () => {
    const unlockedEvent = (r: { body: any }) => r.body?.event === 'resultUnlocked' && r.body.workspaceId === state.workspaceId;
    await receiver.waitFor((requests) => requests.filter(unlockedEvent).length >= 2, 30_000, 'both resultUnlocked deliveries');
    await page.goto(at(`/workspaces/${state.workspaceId}/webhook`));
    await look('webhook');
    const row = page.locator('tbody tr', { hasText: 'resultUnlocked' }).first();
    const envelope = JSON.parse((await row.locator('pre.json').textContent()) ?? 'null');
    const original = receiver.requests.find((r) => r.body?.id === envelope.id);
    expect(original?.body).toEqual(envelope);
    await Promise.all([page.waitForEvent('framenavigated'), row.locator('button:has-text("Resend")').click()]);
    expect(await flash(page)).toMatch(/^Resent as delivery \S+\.$/);
    // A resend is the same envelope (same id, same bytes), delivered again.
    const copies = await receiver.waitFor((requests) => requests.filter((r) => r.body?.id === envelope.id).length >= 2, 30_000, 'the resent delivery');
    expect(copies.filter((r) => r.body?.id === envelope.id).map((r) => r.raw)).toEqual([original?.raw, original?.raw]);
    await page.goto(at(`/workspaces/${state.workspaceId}/webhook`));
    await expect(page.locator('tbody tr', { hasText: 'resultUnlocked' }).count()).resolves.toBe(3);

    // Rotating the secret: a new one is shown, and the settings stay enabled.
    const before = await page.locator('#webhook-secret').textContent();
    await submit(page, 'button:has-text("Rotate secret")');
    expect(await flash(page)).toContain('previous one keeps signing for 24 hours');
    expect(await page.locator('#webhook-secret').textContent()).not.toBe(before);
    await expect(page.locator('.card:has(#webhook-settings) .card-head .badge').textContent()).resolves.toBe('enabled');
  });

  it('redelivers a window of events from the webhook page, and says how many were queued', async () => {
    await page.goto(at(`/workspaces/${state.workspaceId}/webhook`));
    // A refusal is the JSON route's, shown on the page.
    await page.fill('#recover-since', 'yesterday');
    await submit(page, 'button:has-text("Redeliver")');
    expect(await flash(page)).toMatch(/^since must be a date .* \(validation_failed\)$/);

    // The form offers the last day (domain time): every event of this demo so far.
    const mark = receiver.requests.length;
    const mine = (r: { body: any }) => r.body?.workspaceId === state.workspaceId;
    const firsts = new Map(receiver.requests.filter(mine).map((r) => [r.body.id as string, r.raw]));
    expect(firsts.size).toBe(8);
    await submit(page, 'button:has-text("Redeliver")');
    expect(await flash(page)).toMatch(/^8 deliveries queued for redelivery \(events from \S+ to \S+\), sent one after another in the log's order\.$/);
    await page.evaluate('window.scrollTo(0, 0)');
    await look('webhook-recovery', { phone: false });
    const again = await receiver.waitFor((requests) => requests.slice(mark).filter(mine).length >= 8, 30_000, 'the redelivered events')
      .then((requests) => requests.slice(mark).filter(mine));
    expect(new Set(again.map((r) => r.body.id))).toStrictEqual(new Set(firsts.keys()));
    for (const request of again) expect(request.raw).toBe(firsts.get(request.body.id));
  });

  it('shows a stream as a timeline and the state as of a time', async () => {
    await page.goto(at(`/candidates/${state.candidateId}`));
    await submit(page, 'a:has-text("Timeline")');
    expect(new URL(page.url()).pathname).toBe(`/audit/streams/candidate-${state.candidateId}`);
    const types = await page.locator('.timeline .event-type').allTextContents();
    expect(types).toEqual(expect.arrayContaining(['CandidateCreated', 'CandidateRegistered', 'AssessmentStarted', 'TestCompleted', 'AssessmentCompleted', 'ResultUnlocked']));
    const recorded = await request(`${world.service.internalUrl}/internal/streams/candidate-${state.candidateId}`, { headers: { authorization: `Bearer ${world.service.internalToken}` } });
    expect(types).toEqual(recorded.body.data.map((event: { type: string }) => event.type));
    await expect(page.locator('.timeline .meta').first().textContent()).resolves.toContain('internal');
    await look('timeline');

    // As of the registration: nothing after it yet.
    const registered = recorded.body.data.find((event: { type: string }) => event.type === 'CandidateRegistered');
    await page.goto(at(`/audit/as-of?resource=candidate&id=${state.candidateId}&at=${encodeURIComponent(registered.metadata.time)}`));
    const shownAsOf = await page.locator('main').textContent();
    expect(shownAsOf).toContain('CandidateRegistered');
    expect(shownAsOf).not.toContain('ResultUnlocked');
    await look('as-of');
  });

  it('moves the simulated clock and shows health', async () => {
    await page.goto(at('/clock'));
    await look('clock');
    await submit(page, 'button:has-text("+ 1 day")');
    expect(await flash(page)).toMatch(/Clock moved forward 86400 seconds/);
    await page.goto(at('/health'));
    await expect(page.locator('h1').textContent()).resolves.toBe('Health');
    await look('health');
    // The queue dashboard opens from here without the token in a URL.
    const [dashboard] = await Promise.all([page.waitForResponse((response) => new URL(response.url()).pathname === '/internal/queues'), page.click('button:has-text("Queue dashboard")')]);
    expect(dashboard.status()).toBe(200);
    await page.goto(at('/'));
    await look('workspaces');
    await page.goto(at(`/workspaces/${state.workspaceId}`));
    await look('workspace');
  });
});
