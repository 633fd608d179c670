import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; `.ci/run` installs it with apt-get when it is missing. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export interface RunningBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile and every background connection turned off: this
 * machine's network is closed, and Chromium otherwise retries Google's hosts at every start.
 */
export const launchBrowser = async (): Promise<RunningBrowser> => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'hiring-chromium-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    // playwright-core refuses `--user-data-dir` in args: launch() starts on a fresh profile of its own.
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};
