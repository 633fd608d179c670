import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { launchBrowser, type RunningBrowser } from './support/browser.js';
import { api, internal, request } from './support/client.js';
import { openPage, signIn } from './support/pages.js';
import { startService, type RunningService } from './support/service.js';

jest.setTimeout(180_000);

/** A page of another origin that posts a form to the internal application as soon as it loads. */
const startHostileSite = async (target: string, fields: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> => {
  const inputs = Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`).join('');
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><form id="f" method="post" action="${target}">${inputs}</form><script>document.getElementById('f').submit()</script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

/** Who may use the pages, and that no other site can use them through a signed-in browser. */
describe('internal pages: sessions and cross-site requests (e2e)', () => {
  let service: RunningService;
  let chromium: RunningBrowser;

  beforeAll(async () => {
    service = await startService();
    chromium = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await service?.stop();
  });

  const workspaceNames = async (): Promise<string[]> => {
    const { context, page } = await openPage(chromium.browser);
    await signIn(page, service);
    const names = await page.locator('tbody tr td:first-child strong').allTextContents();
    await context.close();
    return names;
  };

  it('sends a visitor without a session to sign-in, and back where they were going afterwards', async () => {
    const { context, page } = await openPage(chromium.browser);
    const answer = await page.goto(`${service.internalUrl}/workspaces/ws_missing/billing`);
    expect(answer?.status()).toBe(200);
    const url = new URL(page.url());
    expect(url.pathname).toBe('/sign-in');
    expect(url.searchParams.get('next')).toBe('/workspaces/ws_missing/billing');
    await expect(page.locator('label[for=token]').textContent()).resolves.toBe('Internal token');
    // A page that does not exist is still a page behind the session: 404 once signed in.
    await page.fill('#token', service.internalToken);
    const [afterSignIn] = await Promise.all([page.waitForResponse((response) => response.url().endsWith('/workspaces/ws_missing/billing')), page.click('button[type=submit]')]);
    expect(afterSignIn.status()).toBe(404);
    const [session] = (await context.cookies()).filter((cookie) => cookie.name === 'hiring_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    await context.close();
  });

  it('signs in from the keyboard alone, and the first Tab reaches the skip link', async () => {
    const { context, page } = await openPage(chromium.browser);
    await page.goto(`${service.internalUrl}/sign-in`);
    // The token field has the focus on arrival (autofocus lands after the load event, so it is waited
    // for: typed before, the token went nowhere and Enter sent an empty form); Enter submits the form.
    await page.waitForFunction("document.activeElement?.id === 'token'", undefined, { timeout: 10_000 });
    await page.keyboard.type(service.internalToken);
    await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.keyboard.press('Enter')]);
    await page.keyboard.press('Tab');
    await expect(page.evaluate<string>('document.activeElement.textContent')).resolves.toBe('Skip to content');
    await context.close();
  });

  it('refuses a wrong token, and a forged session cookie', async () => {
    const { context, page } = await openPage(chromium.browser);
    await page.goto(`${service.internalUrl}/sign-in`);
    await page.fill('#token', `${service.internalToken}x`);
    const [answer] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.click('button[type=submit]')]);
    expect(answer.status()).toBe(401);
    await expect(page.locator('[role=alert]').textContent()).resolves.toBe('That is not the internal token.');
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain('hiring_session');

    const forged = Buffer.from(JSON.stringify({ id: 'forged', expiresAt: Date.now() + 3_600_000 })).toString('base64url');
    await context.addCookies([{ name: 'hiring_session', value: `${forged}.${'A'.repeat(43)}`, url: service.internalUrl }]);
    await page.goto(`${service.internalUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await context.close();
  });

  it('refuses a form posted from another origin, even from a signed-in browser', async () => {
    const { context, page } = await openPage(chromium.browser);
    await signIn(page, service);
    const hostile = await startHostileSite(`${service.internalUrl}/workspaces`, { name: 'Hostile Corp', freeAllowance: '0' });
    try {
      const [answer] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.goto(hostile.url)]);
      expect(answer.status()).toBe(403);
      await expect(page.locator('h1').textContent()).resolves.toBe('Request refused');
    } finally {
      await hostile.close();
    }
    // Signing a visitor in from another site (login CSRF) is refused too.
    const signInFromElsewhere = await startHostileSite(`${service.internalUrl}/sign-in`, { token: service.internalToken });
    try {
      const fresh = await openPage(chromium.browser);
      const [answer] = await Promise.all([fresh.page.waitForResponse((response) => response.request().method() === 'POST'), fresh.page.goto(signInFromElsewhere.url)]);
      expect(answer.status()).toBe(403);
      expect((await fresh.context.cookies()).map((cookie) => cookie.name)).not.toContain('hiring_session');
      await fresh.context.close();
    } finally {
      await signInFromElsewhere.close();
    }
    expect(await workspaceNames()).not.toContain('Hostile Corp');
    await context.close();
  });

  it('refuses a same-origin post without the session\'s CSRF token', async () => {
    const { context, page } = await openPage(chromium.browser);
    await signIn(page, service);
    const post = (body: string) => page.evaluate(async (form) => (await fetch('/workspaces', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, redirect: 'manual',
    })).status, body);
    expect(await post('name=No+Token')).toBe(403);
    expect(await post('name=Wrong+Token&_csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe(403);
    // With this session's own token the same request goes through: a 303, which fetch with redirect 'manual' reports as status 0.
    const token = await page.locator('input[name=_csrf]').first().inputValue();
    expect(await post(`name=With+Token&_csrf=${encodeURIComponent(token)}`)).toBe(0);
    const names = await workspaceNames();
    expect(names).toContain('With Token');
    expect(names).not.toContain('No Token');
    expect(names).not.toContain('Wrong Token');
    await context.close();
  });

  it('signs out, and keeps the JSON API behind its bearer token', async () => {
    const { context, page } = await openPage(chromium.browser);
    await signIn(page, service);
    const cookie = (await context.cookies()).find((item) => item.name === 'hiring_session');
    const withCookie = await request(`${service.internalUrl}/internal/health`, { headers: { cookie: `hiring_session=${cookie?.value}` } });
    expect(withCookie.status).toBe(401);
    expect(withCookie.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });

    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    // The queue dashboard's own cookie (the Health page's button) holds the token: it goes at sign-out too.
    await page.evaluate(async (token) => { await fetch('/queues', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${encodeURIComponent(token)}`, redirect: 'manual',
    }); }, csrf);
    const dashboardCookies = async () => (await context.cookies(`${service.internalUrl}/internal/queues`)).map((item) => item.name);
    expect(await dashboardCookies()).toContain('internal_token');
    await Promise.all([page.waitForURL((url) => url.pathname === '/sign-in'), page.click('button:has-text("Sign out")')]);
    expect((await context.cookies()).map((item) => item.name)).not.toContain('hiring_session');
    expect(await dashboardCookies()).not.toContain('internal_token');
    await page.goto(`${service.internalUrl}/emails`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await context.close();

    // The cookie a browser kept (or someone copied) before signing out opens nothing any more.
    const replayed = await openPage(chromium.browser);
    await replayed.context.addCookies([{ name: 'hiring_session', value: cookie?.value ?? '', url: service.internalUrl }]);
    await replayed.page.goto(`${service.internalUrl}/emails`);
    expect(new URL(replayed.page.url()).pathname).toBe('/sign-in');
    const posted = await replayed.page.evaluate(async (form) => (await fetch('/workspaces', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, redirect: 'manual',
    })).type, `name=After+Sign+Out&_csrf=${encodeURIComponent(csrf)}`);
    // Sent to sign-in (an opaque redirect), never through: no workspace is made.
    expect(posted).toBe('opaqueredirect');
    expect(await workspaceNames()).not.toContain('After Sign Out');
    await replayed.context.close();
  });

  it('answers 401 for a path it does not serve until the request is signed in, then 404', async () => {
    for (const path of ['/no-such-page', '/internal/no-such-route', '/internal/workspaces/ws_1/nothing-here', '/.env']) {
      const anonymous = await request(`${service.internalUrl}${path}`);
      expect({ path, status: anonymous.status }).toEqual({ path, status: 401 });
      expect(anonymous.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      const wrongToken = await request(`${service.internalUrl}${path}`, { headers: { authorization: `Bearer ${service.internalToken}x` } });
      expect(wrongToken.status).toBe(401);
      const withToken = await request(`${service.internalUrl}${path}`, { headers: { authorization: `Bearer ${service.internalToken}` } });
      expect({ path, status: withToken.status }).toEqual({ path, status: 404 });
    }
    const posted = await request(`${service.internalUrl}/internal/no-such-route`, { method: 'POST', body: {} });
    expect(posted.status).toBe(401);
    // A signed-in browser gets the 404 too.
    const { context, page } = await openPage(chromium.browser);
    await signIn(page, service);
    const answer = await page.goto(`${service.internalUrl}/no-such-page`);
    expect(answer?.status()).toBe(404);
    await context.close();
  });

  it('shows addresses in a candidate\'s name as text in the outbox, and only the invitation link as a link', async () => {
    const app = internal(service);
    const workspace = await app.workspace();
    const live = api(service, workspace.live);
    const assessment = (await live.post('/v1/assessments', { name: 'Name links', tests: ['numerical-reasoning'] })).body.data as { id: string };
    const email = `names-${Date.now().toString(36)}@example.com`;
    const invited = await live.post(`/v1/assessments/${assessment.id}/invitations`, {
      candidates: [{ email, firstName: 'Eve https://evil.example/phish www.evil.example', surname: 'http://evil.example/s' }],
    });
    const invitationUrl: string = invited.body.data[0].invitationUrl;
    const { context, page } = await openPage(chromium.browser);
    await signIn(page, service, `/emails?to=${encodeURIComponent(email)}`);
    await page.locator('article.email').first().waitFor();
    const hrefs = await page.locator('article.email pre a').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs).toEqual([new URL(invitationUrl).pathname]);
    await expect(page.locator('article.email pre').textContent()).resolves.toContain('Hello Eve https://evil.example/phish www.evil.example,');
    expect(await page.locator('a[href*="evil.example"]').count()).toBe(0);
    await context.close();
  });

  // Last: it locks this address out of signing in for a minute.
  it('makes an address wait after ten wrong tokens in a minute', async () => {
    const attempt = (token: string) => request(`${service.internalUrl}/sign-in`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' }, raw: `token=${encodeURIComponent(token)}&next=%2F`,
    });
    for (let failure = 0; failure < 10; failure += 1) expect((await attempt('wrong')).status).toBe(401);
    const refused = await attempt('wrong');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Even the right token waits: guessing must not be able to tell.
    const right = await attempt(service.internalToken);
    expect(right.status).toBe(429);
    expect(right.headers.get('set-cookie')).toBeNull();
  });
});
