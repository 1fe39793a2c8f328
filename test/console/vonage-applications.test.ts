// The console's Vonage applications page in Chromium, against a real `twofa serve` process: an
// operator registers a twofa application as a Vonage application with a public key and a callback
// URL (its signature secret shown once), rotates the secret, replaces the key (the old key's JWTs stop
// logging in, the new one's do), and removes it. What the page did is checked through the API and
// Vonage's own SDK.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Auth } from '@vonage/auth';
import { Vonage } from '@vonage/server-sdk';
import type { Page } from 'playwright-core';
import { buildWeb, webBuildIsStale } from '../../scripts/build-web.mjs';
import { createTwofaClient, type TwofaClient } from '../../src/client/index.js';
import { freshPhone } from '../support/http-assertions.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { closeBrowserAndServer, launchBrowser, skipWithoutBrowser } from './browser.js';

function rsaKeys() {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

describe('the console\'s Vonage applications page in Chromium', { skip: skipWithoutBrowser, timeout: 90_000 }, () => {
  let server: ServerProcess;
  let api: TwofaClient;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let applicationId = '';
  const problems: string[] = [];
  const [first, second] = [rsaKeys(), rsaKeys()];

  const start = (privateKey: string) => new Vonage(new Auth({ applicationId, privateKey }), { apiHost: server.url }).verify2
    .newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to: freshPhone() }] } as never);

  before(async () => {
    if (webBuildIsStale()) await buildWeb();
    // A callback URL on loopback needs the operator's opt-in to private addresses.
    [server, browser] = await Promise.all([startServerProcess({ TWOFA_LOG_LEVEL: 'warn', TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true' }), launchBrowser()]);
    api = createTwofaClient({ baseUrl: server.url, apiKey: server.key });
    applicationId = (await api.applications.create({ name: 'Vonage shop' })).applicationId;
    page = browser.context.pages()[0] ?? await browser.context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => { void dialog.accept(); });
  });
  after(async () => {
    await closeBrowserAndServer(browser, server);
  });

  it('registers an application with its public key and callback URL, showing the signature secret once', async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByLabel('API key').fill(server.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Vonage applications', exact: true }).click();
    await page.getByRole('heading', { name: 'Vonage applications', level: 1 }).waitFor();
    await page.getByText('No Vonage application.').waitFor();

    await page.getByLabel('Application', { exact: true }).selectOption(applicationId);
    await page.getByLabel('Public key').fill('not a key');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.locator('#vonage-public-key-error').filter({ hasText: /RSA public key/ }).waitFor();

    await page.getByLabel('Public key').fill(first.publicKey);
    await page.getByLabel('Callback URL').fill('http://127.0.0.1:9/vonage');
    await page.getByRole('button', { name: 'Register' }).click();
    const secret = await page.getByTestId('signature-secret').inputValue();
    assert.ok(secret.length >= 32);
    await page.getByRole('cell', { name: 'http://127.0.0.1:9/vonage' }).waitFor();
    const saved = await api.vonage.getApplication(applicationId);
    assert.equal(saved.callbackUrl, 'http://127.0.0.1:9/vonage');
    assert.equal(saved.signatureSecretSet, true);
    assert.match((await start(first.privateKey)).requestId, /^[0-9a-f-]{36}$/, 'the SDK logs in with a JWT of the private half');
    await page.getByRole('button', { name: 'Done' }).click();
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
  });

  it('rotates the signature secret, and replaces the key: the old one\'s JWTs stop logging in', async () => {
    await page.getByRole('button', { name: `Rotate secret ${applicationId}` }).click();
    const rotated = await page.getByTestId('signature-secret').inputValue();
    assert.ok(rotated.length >= 32);
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: `Change ${applicationId}` }).click();
    await page.getByRole('heading', { name: 'Change a Vonage application' }).waitFor();
    assert.equal(await page.getByLabel('Callback URL').inputValue(), 'http://127.0.0.1:9/vonage');
    await page.getByLabel('Public key').fill(second.publicKey);
    await page.getByLabel('Callback URL').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: /Saved the Vonage application/ }).waitFor();
    const saved = await api.vonage.getApplication(applicationId);
    assert.equal(saved.callbackUrl, null, 'an empty callback URL removes it');
    assert.equal(saved.publicKey.trim(), second.publicKey.trim());
    await assert.rejects(start(first.privateKey), /status code 401/);
    assert.ok((await start(second.privateKey)).requestId);
  });

  it('removes the application', async () => {
    await page.getByRole('button', { name: `Remove ${applicationId}` }).click();
    await page.getByText('No Vonage application.').waitFor();
    await assert.rejects(api.vonage.getApplication(applicationId), /404/);
    await assert.rejects(start(second.privateKey), /status code 401/);
    assert.deepEqual(problems, []);
  });
});
