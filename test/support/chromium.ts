// Debian's Chromium for the browser tests (test/console), driven through playwright-core: where it
// is, how it is started, and whether a suite skips without it. No browser is downloaded: without
// /usr/bin/chromium (apt-get install chromium) the suites skip, unless TWOFA_REQUIRE_BROWSER=1 (CI),
// which makes them fail.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import type { ServerProcess } from './server-process.js';

export const CHROMIUM = process.env['TWOFA_CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
export const browserMissing = !fs.existsSync(CHROMIUM);

/** The `skip` of a browser suite: the reason (said on stderr) when Chromium is missing and not required. */
export function skipWithoutBrowser(what: string): string | false {
  if (!browserMissing || process.env['TWOFA_REQUIRE_BROWSER'] === '1') return false;
  const reason = `Chromium not found at ${CHROMIUM}: skipping ${what} (apt-get install chromium; TWOFA_REQUIRE_BROWSER=1 makes this a failure)`;
  process.stderr.write(`\n*** ${reason} ***\n\n`);
  return reason;
}

/** Throws when Chromium is missing (a suite's `before`, reached only when it is required). */
export function requireBrowser(): void {
  if (browserMissing) throw new Error(`Chromium not found at ${CHROMIUM} and TWOFA_REQUIRE_BROWSER=1: install it (apt-get install chromium)`);
}

/** A headless Chromium with a profile of its own, in British English and UTC (the screenshots are stable). */
export async function launchChromium(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; userDataDir: string }> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport, locale: 'en-GB', timezoneId: 'UTC' });
  return { context, userDataDir };
}

/** Closes the browser and stops the server, removing their folders. */
export async function closeBrowserAndServer(browser: { context?: BrowserContext; userDataDir?: string }, server: ServerProcess | undefined): Promise<void> {
  await browser.context?.close().catch(() => undefined);
  if (browser.userDataDir) fs.rmSync(browser.userDataDir, { recursive: true, force: true });
  if (server) {
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
}
