// The console's factors page in Chromium (playwright-core) against a real `twofa serve`: an operator
// opens a user of an application, makes a TOTP factor, sees its QR code (the otpauth:// URI of the
// seed shown beside it), types the code an authenticator app computes from it (otplib here) and sees
// the factor verified; the application's security panel shows the TOTP bound and the day's counts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import QRCode from 'qrcode';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildWeb, webBuildIsStale } from '../../scripts/build-web.mjs';
import { createTwofaClient, type TwofaClient } from '../../src/client/index.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const CHROMIUM = process.env['TWOFA_CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const browserMissing = !fs.existsSync(CHROMIUM);
const skip = browserMissing && process.env['TWOFA_REQUIRE_BROWSER'] !== '1' ? `Chromium not found at ${CHROMIUM}` : false;

describe('the console\'s factors page in Chromium', { skip, timeout: 90_000 }, () => {
  let server: ServerProcess;
  let api: TwofaClient;
  let context: BrowserContext;
  let page: Page;
  let userDataDir = '';
  const problems: string[] = [];

  before(async () => {
    if (webBuildIsStale()) await buildWeb();
    server = await startServerProcess({ TWOFA_LOG_LEVEL: 'warn' });
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    api = createTwofaClient({ baseUrl: server.url, apiKey: server.key });
    page = context.pages()[0] ?? await context.newPage();
    page.on('console', (message) => { if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(`console: ${message.text()}`); });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  });

  after(async () => {
    await context?.close().catch(() => undefined);
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
    if (server) {
      await server.stop();
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
  });

  it('makes a TOTP factor shown as a QR code, verifies it with the app\'s code, and shows the TOTP bound in the security panel', async () => {
    const appId = (await api.applications.create({ name: 'Console factors' })).applicationId;
    await page.goto(`${server.url}/console/`);
    await page.getByLabel('API key').fill(server.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.goto(`${server.url}/console/applications/${appId}`);
    await page.getByRole('link', { name: 'manage them' }).click();
    await page.getByRole('heading', { name: 'Users\' factors', level: 1 }).waitFor();
    await page.getByText('No user has a factor yet.').waitFor();

    await page.getByLabel('User', { exact: true }).fill('user-console-0001');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Factors of user-console-0001', level: 1 }).waitFor();
    await page.getByText('No factor yet.').waitFor();
    await page.getByLabel('Account name shown in the app').fill('ann@example.com');
    await page.getByRole('button', { name: 'Make TOTP factor' }).click();

    const qr = page.getByRole('img', { name: /QR code of the new factor/ });
    await qr.waitFor();
    const secret = (await page.getByTestId('factor-secret').textContent())!;
    assert.match(secret, /^[A-Z2-7]{32}$/);
    // The QR code is the otpauth:// URI of that seed, as the qrcode package draws it.
    const uri = `otpauth://totp/Console%20factors:ann%40example.com?secret=${secret}&issuer=Console%20factors&algorithm=SHA1&digits=6&period=30`;
    assert.equal(await qr.getAttribute('src'), `data:image/svg+xml;utf8,${encodeURIComponent(await QRCode.toString(uri, { type: 'svg', margin: 2 }))}`);

    await page.getByLabel('Code the app shows').fill('000000' === await generate({ secret }) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify factor' }).click();
    await page.getByText(/Wrong code: the factor is still unverified/).waitFor();
    await page.getByLabel('Code the app shows').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Verify factor' }).click();
    await page.getByText('Factor verified.').waitFor();
    await page.getByRole('cell', { name: 'verified', exact: true }).waitFor();
    const [factor] = await api.factors.list(appId, 'user-console-0001');
    assert.equal(factor?.status, 'verified');

    await page.goto(`${server.url}/console/applications/${appId}`);
    const guessing = page.getByTestId('totp-guessing');
    await guessing.waitFor();
    assert.match((await guessing.textContent()) ?? '', /Last 24 hours: 0 wrong codes, 0 challenges denied; 0 factors locked out/);
    await page.getByText(/At most 10 codes per factor every 60 min/).waitFor();
    assert.deepEqual(problems, []);
  });
});
