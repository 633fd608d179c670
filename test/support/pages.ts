import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, type RunningBrowser } from './browser.js';
import { request, type HttpAnswer } from './client.js';
import { startService, type RunningService } from './service.js';

export const LAPTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

/** A browser context of its own (own cookies), with confirmations accepted like a user who means it. */
export const openPage = async (browser: Browser, viewport = LAPTOP): Promise<{ context: BrowserContext; page: Page }> => {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  return { context, page };
};

export const signIn = async (page: Page, service: RunningService, next = '/'): Promise<void> => {
  await page.goto(`${service.internalUrl}/sign-in?next=${encodeURIComponent(next)}`);
  await page.fill('#token', service.internalToken);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/sign-in')), page.click('button[type=submit]')]);
};

/** The one-time message the last action left on the page. */
export const flash = async (page: Page): Promise<string> => (await page.locator('.flash').first().textContent())?.trim() ?? '';

/** Clicks and waits for the page the click leads to (a form post answered by a redirect, or a link). */
export const submit = async (page: Page, selector: string): Promise<void> => {
  await Promise.all([page.waitForEvent('framenavigated'), page.locator(selector).first().click()]);
  await page.waitForLoadState('domcontentloaded');
};

/**
 * Screenshots of the pages for docs/screenshots: written only when PAGES_SCREENSHOTS names a
 * folder (`npm run screenshots` writes docs/screenshots), at a laptop and a phone width.
 */
export const screenshots = (browser: Browser) => {
  const folder = process.env['PAGES_SCREENSHOTS'];
  return {
    enabled: Boolean(folder),
    async take(page: Page, name: string, options: { phone?: boolean } = {}): Promise<void> {
      if (!folder) return;
      mkdirSync(folder, { recursive: true });
      await page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });
      if (options.phone === false) return;
      const phone = await browser.newContext({ viewport: PHONE, storageState: await page.context().storageState(), isMobile: true, deviceScaleFactor: 1 });
      const phonePage = await phone.newPage();
      await phonePage.goto(page.url());
      await phonePage.screenshot({ path: join(folder, `${name}-phone.png`), fullPage: true });
      await phone.close();
    },
  };
};

/**
 * What every page owes keyboard and screen-reader users, checked on the page as rendered: one h1,
 * a label for every control, a name for every button and link.
 */
// Runs in the page (a string: this project compiles without the DOM's types).
const ACCESSIBILITY_PROBLEMS = `(() => {
  const found = [];
  const headings = document.querySelectorAll('h1').length;
  if (headings !== 1) found.push(headings + ' h1');
  if (!document.documentElement.lang) found.push('no lang');
  for (const control of document.querySelectorAll('input, select, textarea')) {
    if (control.type === 'hidden' || control.hidden) continue;
    if (control.labels.length === 0 && !control.getAttribute('aria-label')) found.push('unlabelled ' + control.tagName + ' ' + control.name);
  }
  for (const element of document.querySelectorAll('button, a[href]')) {
    if (!element.textContent.trim() && !element.getAttribute('aria-label')) found.push('nameless ' + element.outerHTML.slice(0, 80));
  }
  return found;
})()`;

export const expectAccessible = async (page: Page): Promise<void> => {
  const problems = await page.evaluate<string[]>(ACCESSIBILITY_PROBLEMS);
  if (problems.length > 0) throw new Error(`${page.url()}: ${problems.join('; ')}`);
};

/** The id a page's path names at `index` (`/candidates/{id}` → index 2). */
export const idInPath = (page: Page, index = 2): string => decodeURIComponent(new URL(page.url()).pathname.split('/')[index] ?? '');

export interface PagesWorld {
  service: RunningService;
  chromium: RunningBrowser;
  /** One signed-in tab, used in order by the tests of a file. */
  page: Page;
  /** Checks the page for labels and headings, then photographs it (when asked to). */
  look(name: string, options?: { phone?: boolean }): Promise<void>;
  at(path: string): string;
  publicApi(credential: string): (path: string, body?: unknown) => Promise<HttpAnswer>;
  close(): Promise<void>;
}

/** The service as `npm start` runs it, a browser, and one tab signed in to the pages. */
export const startPagesWorld = async (env: Record<string, string> = {}): Promise<PagesWorld> => {
  const service = await startService(env);
  const chromium = await launchBrowser();
  const shots = screenshots(chromium.browser);
  const { page } = await openPage(chromium.browser);
  return {
    service,
    chromium,
    page,
    async look(name, options = {}) {
      await expectAccessible(page);
      await shots.take(page, name, options);
    },
    at: (path) => `${service.internalUrl}${path}`,
    publicApi: (credential) => (path, body) => request(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${credential}` }, body }),
    async close() {
      await chromium.close();
      await service.stop();
    },
  };
};
