// What the console's browser tests share: Debian's Chromium (no browser is downloaded), its flags,
// whether the tests run without it, and a persistent context on a throwaway profile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import type { ServerProcess } from '../support/server-process.js';

export const CHROMIUM = process.env['TWOFA_CHROMIUM'] ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
export const browserMissing = !fs.existsSync(CHROMIUM);
const required = process.env['TWOFA_REQUIRE_BROWSER'] === '1';
/** The `skip` of a browser test's describe(): a reason without Chromium (unless TWOFA_REQUIRE_BROWSER=1), else false. */
export const skipWithoutBrowser: string | false = browserMissing && !required
  ? `Chromium not found at ${CHROMIUM}: skipping the console's browser test (apt-get install chromium; TWOFA_REQUIRE_BROWSER=1 makes this a failure)`
  : false;
if (skipWithoutBrowser) process.stderr.write(`\n*** ${skipWithoutBrowser} ***\n\n`);

/** Chromium on a profile of its own, removed by `close()`. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (browserMissing) throw new Error(`Chromium not found at ${CHROMIUM} and TWOFA_REQUIRE_BROWSER=1: install it (apt-get install chromium)`);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 860 }, locale: 'en-GB', timezoneId: 'UTC',
  });
  context.setDefaultTimeout(10_000);
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The end of a browser test: the browser, then the server and its data. */
export async function closeBrowserAndServer(browser: { close(): Promise<void> } | undefined, server: ServerProcess | undefined): Promise<void> {
  await browser?.close();
  if (server) {
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
}
