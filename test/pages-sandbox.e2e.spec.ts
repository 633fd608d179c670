import { jest } from '@jest/globals';
import type { Page } from 'playwright-core';
import { flash, idInPath, signIn, startPagesWorld, submit, type PagesWorld } from './support/pages.js';

jest.setTimeout(240_000);

/** The rest of a demo from the browser: sandbox keys and test candidates, custom tests, sign-up links, billing, refusals. */
describe('internal pages: sandbox, sign-up and billing from the browser (e2e)', () => {
  let world: PagesWorld;
  let page: Page;
  let workspaceId = '';

  beforeAll(async () => {
    world = await startPagesWorld();
    ({ page } = world);
    await signIn(page, world.service);
    await page.fill('#workspace-name', 'Sandbox Staffing');
    await submit(page, 'button:has-text("Create workspace")');
    workspaceId = idInPath(page);
    await submit(page, 'button:has-text("Verify workspace")');
  }, 180_000);

  afterAll(async () => {
    await world?.close();
  });

  const at = (path: string) => world.at(path);

  it('gives a sandbox demo: custom test, sign-up link, a refusal shown on the page, billing, closing, deleting a test candidate', async () => {
    await page.fill('#custom-name', 'Warehouse safety');
    await submit(page, 'button:has-text("Add test")');
    expect(await flash(page)).toMatch(/^Custom test “Warehouse safety” \(\S+\) created\.$/);
    await page.check('input[name=mode][value=sandbox]');
    await submit(page, 'button:has-text("Create key")');
    const sandboxKey = `${await page.locator('#issued-key-value').textContent()}:${await page.locator('#issued-secret-value').textContent()}`;
    expect(sandboxKey).toMatch(/^SBX/);
    const call = world.publicApi(sandboxKey);
    const created = await call('/v1/assessments', { name: 'Warehouse lead', tests: ['numerical-reasoning'] });
    const assessmentId = created.body.data.id as string;
    expect((await call(`/v1/assessments/${assessmentId}/invitations`, { candidates: [{ email: 'tess@example.com' }] })).body.meta).toMatchObject({ invited: 1 });

    await page.goto(at(`/assessments/${assessmentId}`));
    await page.selectOption('#custom-slug', { index: 0 });
    await submit(page, 'button:has-text("Append")');
    expect(await flash(page)).toMatch(/^Test \S+ appended\.$/);
    await expect(page.locator('.card:has(#tests) tbody tr').count()).resolves.toBe(2);
    await submit(page, '.card:has(#invitations) a:has-text("Open invitation")');
    await submit(page, 'button:has-text("Accept and register")');
    const testCandidateId = idInPath(page);
    await expect(page.locator('.page-actions .badge').first().textContent()).resolves.toBe('sandbox');
    expect((await call(`/v1/candidates/${testCandidateId}`)).status).toBe(200);

    // The public sign-up link: an address that is not one is refused with the API's own code, and nothing is created.
    await page.goto(at(`/assessments/${assessmentId}`));
    await submit(page, 'a:has-text("Sign someone up in the simulator")');
    const signUpPage = page.url();
    await page.fill('#reg-email', 'sam@localhost');
    await submit(page, 'button:has-text("Sign up")');
    expect(page.url()).toBe(signUpPage);
    await expect(page.locator('.flash.error').textContent()).resolves.toMatch(/\(\w+\)$/);
    await page.fill('#reg-email', 'sam@example.com');
    await submit(page, 'button:has-text("Sign up")');
    expect(await flash(page)).toContain('Registered');
    await expect(page.locator('.page-actions .badge').first().textContent()).resolves.toBe('live');
    // Sam is the workspace's first live candidate and its free allowance is 0: this unlock bills.
    const samId = idInPath(page);
    await submit(page, 'button:has-text("Finish test")');
    await submit(page, 'button:has-text("Unlock result")');
    expect(await flash(page)).toContain('This unlock billed the candidate (charged: true)');
    await page.goto(at(`/workspaces/${workspaceId}/billing`));
    await expect(page.locator('.card:has(#billed) tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('.card:has(#billed) tbody').textContent()).resolves.toContain(samId);
    await world.look('billing');

    await page.goto(at(`/candidates/${testCandidateId}`));
    await submit(page, 'button:has-text("Delete test candidate")');
    expect(await flash(page)).toContain(`GET /v1/candidates/${testCandidateId} now answers 404`);
    expect((await call(`/v1/candidates/${testCandidateId}`)).status).toBe(404);

    await page.goto(at(`/assessments/${assessmentId}`));
    await submit(page, 'button:has-text("Close assessment")');
    expect(await flash(page)).toContain('closed');
    expect((await call(`/v1/assessments/${assessmentId}`)).body.data.status).toBe('archived');
    await expect(page.locator('.card:has(#candidates) tbody tr').count()).resolves.toBe(1);

    // Regenerating the sandbox key: the new secret is shown once, the old credential stops working.
    await page.goto(at(`/workspaces/${workspaceId}`));
    await submit(page, `tr:has-text("${sandboxKey.split(':')[0]}") button:has-text("Regenerate")`);
    const regenerated = `${await page.locator('#issued-key-value').textContent()}:${await page.locator('#issued-secret-value').textContent()}`;
    expect(regenerated).not.toBe(sandboxKey);
    expect((await call('/v1/me')).status).toBe(401);
    expect((await world.publicApi(regenerated)('/v1/me')).status).toBe(200);
  });
});
