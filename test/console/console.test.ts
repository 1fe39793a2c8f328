// The console end to end: Debian's Chromium, driven through playwright-core, against a real
// `twofa serve` process serving the built app at /console. An operator signs in, creates an
// application, an SMS template and an email template, sends a test PIN, finds it in the inbox; the
// PIN is verified through the API; the verification and the dashboard counts change. Every page is
// saved as a screenshot in test/console/.artifacts/ (and the dashboard in docs/ when asked to).
//
// No browser is downloaded (test/console/browser.ts): the test uses /usr/bin/chromium. Without it
// the test skips, unless TWOFA_REQUIRE_BROWSER=1 (CI), which makes it fail.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { buildWeb, webBuildIsStale } from '../../scripts/build-web.mjs';
import { createTwofaClient, type TwofaClient } from '../../src/client/index.js';
import { formatMicros } from '../../src/domain/money.js';
import { PROJECT_ROOT, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { closeBrowserAndServer, launchBrowser, skipWithoutBrowser } from './browser.js';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test', 'console', '.artifacts');
const DOCS_SCREENSHOT = path.join(PROJECT_ROOT, 'docs', 'console-dashboard.png');

describe('the console in Chromium', { skip: skipWithoutBrowser, timeout: 90_000 }, () => {
  let server: ServerProcess;
  let api: TwofaClient;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const problems: string[] = [];
  const requestedUrls: string[] = [];
  const phone = '41791234567';
  const state = { applicationId: '', appName: 'Console test app', pinId: '', pin: '' };

  async function shot(name: string): Promise<string> {
    const file = path.join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  }

  async function nav(label: string) {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  }

  const totals = async () => ({
    sends: await page.getByTestId('total-sends').textContent(),
    verifications: await page.getByTestId('total-verifications').textContent(),
  });

  let pricesDir: string | undefined;
  before(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    // The server serves the built app: build it when web/ changed since the last build.
    if (webBuildIsStale()) await buildWeb();
    // Swiss messages cost 0.05 EUR a part (docs/routing.md#prices): the PIN and Spend pages show it.
    // The Fraud page's pumped British range costs 0.03 EUR a message: what its blocks would have saved.
    pricesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-console-prices-'));
    fs.writeFileSync(path.join(pricesDir, 'prices.csv'), 'transport,country,prefix,price,currency\nlog,CH,,0.0500,EUR\nlog,GB,4474002,0.0300,EUR\n');
    [server, browser] = await Promise.all([
      startServerProcess({
        TWOFA_LOG_LEVEL: 'warn',
        TWOFA_PRICES_FILE: path.join(pricesDir, 'prices.csv'),
        // Two named transports (both the local inbox) and a rule for India, for the Routes page.
        TWOFA_TRANSPORT_PRIMARY: 'log://', TWOFA_TRANSPORT_BACKUP: 'log://',
        TWOFA_ROUTES: JSON.stringify([{ name: 'india', channel: 'sms', countries: ['IN'], transports: ['primary', 'backup'], sender: { id: 'ACMEIN', kind: 'alphanumeric' }, regulatory: { dltEntityId: '1101234567890123456', dltTemplateId: '1107123456789012345' } }]),
      }),
      launchBrowser(),
    ]);
    api = createTwofaClient({ baseUrl: server.url, apiKey: server.key });
    page = browser.context.pages()[0] ?? await browser.context.newPage();
    // Refused requests (a wrong key, an invalid number) are logged by Chromium as failed loads: those are expected.
    page.on('console', (message) => { if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(`console: ${message.text()}`); });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => requestedUrls.push(request.url()));
    // window.confirm (revoking a key) is answered yes.
    page.on('dialog', (dialog) => { void dialog.accept(); });
  });

  after(async () => {
    await closeBrowserAndServer(browser, server);
    if (pricesDir) fs.rmSync(pricesDir, { recursive: true, force: true });
  });

  it('signs in only with a key that has 2fa:manage, and shows the dashboard', async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const keyField = page.getByLabel('API key');
    await keyField.fill('tfa_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#apiKey-error').filter({ hasText: /not accepted/ }).waitFor();
    assert.equal(await keyField.getAttribute('aria-invalid'), 'true');

    const sendOnly = await api.keys.create({ label: 'send only', scopes: ['2fa:pin:send'] });
    await keyField.fill(sendOnly.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#apiKey-error').filter({ hasText: /2fa:manage/ }).waitFor();
    await shot('01-sign-in-refused');

    await keyField.fill(server.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByText('default', { exact: true }).waitFor();
    assert.deepEqual(await totals(), { sends: '0', verifications: '0' });
    await shot('02-dashboard-empty');
  });

  it('creates an application, checking durations and limits as they are typed', async () => {
    await nav('Applications');
    await page.getByRole('button', { name: 'New application' }).click();
    await page.getByLabel('Name', { exact: true }).fill(state.appName);
    const ttl = page.getByLabel('PIN time to live');
    await ttl.fill('15 minutes');
    await page.locator('#pinTimeToLive-error').filter({ hasText: /timeLength/ }).waitFor();
    assert.equal(await ttl.getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Send limit per destination').fill('5/400d');
    await page.locator('#sendPinPerPhoneNumberLimit-error').filter({ hasText: /one year/ }).waitFor();
    await shot('03-application-invalid');
    await ttl.fill('10m');
    await page.getByLabel('Send limit per destination').fill('20/1d');
    assert.equal(await ttl.getAttribute('aria-invalid'), null);
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.getByRole('heading', { name: state.appName, level: 1 }).waitFor();
    state.applicationId = page.url().split('/').pop() ?? '';
    const created = await api.applications.get(state.applicationId);
    assert.equal(created.configuration.pinTimeToLive, '10m');
    assert.equal(created.configuration.sendPinPerPhoneNumberLimit, '20/1d');
  });

  it('creates an SMS template with a live preview, encoding and segment count', async () => {
    await page.getByRole('link', { name: 'New SMS/voice template' }).click();
    await page.getByRole('heading', { name: 'New SMS/voice template' }).waitFor();
    const text = page.getByLabel('Message text');
    await text.fill('Your Acme code is {{pin}}. It expires in 10 minutes.');
    await page.getByTestId('sms-preview').filter({ hasText: 'Your Acme code is 482719.' }).waitFor();
    await page.getByTestId('sms-info').filter({ hasText: /GSM-7.*1 SMS/ }).waitFor();
    await text.fill('Ihr Acme-Code lautet {{pin}} ✅');
    await page.getByTestId('sms-info').filter({ hasText: /UCS-2/ }).waitFor();
    await text.fill('Code only');
    await page.locator('#messageText-error').filter({ hasText: '{{pin}}' }).waitFor();
    await text.fill(`Your {{brand}} code is {{pin}}. ${'It is valid for ten minutes; never share it with anyone. '.repeat(3)}`);
    await page.getByLabel('{{brand}}').fill('Acme');
    await page.getByTestId('sms-info').filter({ hasText: /GSM-7.*2 SMS/ }).waitFor();
    await shot('04-sms-template');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'SMS/voice template', exact: true }).waitFor();
    const templates = await api.messages.list(state.applicationId);
    assert.equal(templates.length, 1);
    assert.match(templates[0]?.messageText ?? '', /^Your \{\{brand\}\} code/);
    // The application page shows the brute-force budget of its settings beside them.
    await page.getByRole('link', { name: state.appName }).click();
    await page.getByRole('heading', { name: 'Brute-force budget' }).waitFor();
    await page.getByText('1 in 100,000', { exact: true }).waitFor();
    await shot('05-application');
  });

  it('sets the application\'s anti-fraud rules, checked as they are typed', async () => {
    const panel = page.getByRole('form', { name: 'Anti-fraud settings' });
    await panel.getByLabel('Sends per client address').fill('10 per hour');
    await page.locator('#sec-perIpSendLimit-error').filter({ hasText: /attempts/ }).waitFor();
    await panel.getByLabel('Sends per client address').fill('50/1h');
    await panel.getByLabel('Never these countries').fill('fr');
    await panel.getByLabel('Anti-fraud guards on').check();
    await panel.getByRole('button', { name: 'Save anti-fraud settings' }).click();
    await panel.getByText('Anti-fraud settings saved.').waitFor();
    const security = await api.security.get(state.applicationId);
    assert.equal(security.settings.enabled, true);
    assert.deepEqual(security.settings.blockedCountries, ['FR']);
    await shot('06-anti-fraud');
  });

  it('creates an email template with a live preview, and an email message with it', async () => {
    await nav('Email templates');
    await page.getByRole('link', { name: 'New email template' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Login code');
    await page.getByLabel('Subject', { exact: true }).fill('{{pin}} is your Acme code');
    await page.getByTestId('email-preview-subject').filter({ hasText: '482719 is your Acme code' }).waitFor();
    await page.getByTestId('email-preview-text').filter({ hasText: 'Hello Ann' }).waitFor();
    await shot('07-email-template');
    await page.getByRole('button', { name: 'Create email template' }).click();
    await page.getByRole('heading', { name: 'Login code', level: 1 }).waitFor();
    const [emailTemplate] = await api.emailTemplates.list();
    assert.equal(emailTemplate?.subject, '{{pin}} is your Acme code');

    await page.goto(`${server.url}/console/applications/${state.applicationId}/templates/new?kind=email`);
    await page.getByRole('heading', { name: 'New email template message' }).waitFor();
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Email template message', exact: true }).waitFor();
    assert.equal((await api.messages.list(state.applicationId)).length, 2);
  });

  it('sends a test PIN and finds it in the inbox, shown as a phone shows it', async () => {
    await nav('Send a test PIN');
    await page.getByLabel('Application', { exact: true }).selectOption({ label: state.appName });
    await page.getByLabel('Message template').selectOption({ index: 0 });
    await page.getByLabel('Phone number').fill('4179 not a number');
    await page.getByLabel('Value of {{brand}}').fill('Acme');
    await page.getByRole('button', { name: 'Send PIN' }).click();
    // The service's own field error, beside the field it names.
    await page.locator('#to-error').filter({ hasText: /./ }).waitFor();
    await page.getByLabel('Phone number').fill(phone);
    await page.getByRole('button', { name: 'Send PIN' }).click();
    const sent = page.getByTestId('sent');
    await sent.waitFor();
    state.pinId = (await sent.locator('code').textContent()) ?? '';
    assert.match(state.pinId, /^[0-9A-F]{32}$/);
    await shot('08-send');

    await sent.getByRole('link', { name: 'Open the inbox' }).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    const message = page.locator(`[data-testid="inbox-message"][data-pin-id="${state.pinId}"]`);
    await message.waitFor({ timeout: 15_000 });
    const text = (await message.locator('.bubble-text').textContent()) ?? '';
    const pin = /code is ([0-9]{4,16})\./.exec(text)?.[1];
    assert.ok(pin, `a PIN in "${text}"`);
    state.pin = pin;
    await shot('09-inbox');
  });

  it('shows the PIN verified through the API in the verifications, with its history; never the PIN', async () => {
    const verified = await api.pins.verify(state.pinId, state.pin);
    assert.equal(verified.verified, true);

    await nav('Verifications');
    await page.getByLabel('Destination').fill(`+${phone.slice(0, 2)} ${phone.slice(2)}`);
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.locator(`tr[data-pin-id="${state.pinId}"]`);
    await row.filter({ hasText: 'verified' }).waitFor();
    assert.ok(page.url().includes('to=%2B41'), 'filters are in the address; the key never is');
    assert.ok(!(await page.content()).includes(state.pin), 'the list never shows the PIN');
    await shot('10-verifications');
    await row.getByRole('link').click();
    await page.getByTestId('pin-state').filter({ hasText: 'verified' }).waitFor();
    await page.getByRole('list').filter({ hasText: 'queued' }).filter({ hasText: 'sent' }).first().waitFor();
    // Its message: two SMS parts to Switzerland at 0.05 EUR each.
    await page.getByTestId('pin-message-price').filter({ hasText: '0.1000 EUR' }).waitFor();
    assert.ok(!(await page.content()).includes(state.pin), 'the details never show the PIN');
    await shot('11-pin');
  });

  it('shows what the messages cost, and sets the account\'s budget', async () => {
    await nav('Spend');
    await page.getByRole('heading', { name: 'Spend and budgets', level: 1 }).waitFor();
    await page.getByTestId('spend-row').filter({ hasText: 'CH' }).filter({ hasText: 'EUR' }).first().waitFor();
    await page.getByRole('cell', { name: 'whole country' }).waitFor();
    await page.getByTestId('budget-none').waitFor();
    await page.getByLabel('Daily cap').fill('100');
    await page.getByLabel('Caps per country').fill('CH daily=50');
    await page.getByRole('button', { name: 'Save budget' }).click();
    await page.getByText('Budget saved.').waitFor();
    await page.getByTestId('budget-facts').filter({ hasText: '100.0000 EUR' }).waitFor();
    const budget = await api.budgets.get();
    assert.deepEqual([budget.currency, budget.daily, budget.countries], ['EUR', '100.0000', { CH: { daily: '50.0000', monthly: null } }]);
    await page.getByLabel('Daily cap').fill('ten');
    await page.getByRole('button', { name: 'Save budget' }).click();
    await page.locator('#budget-daily-error').filter({ hasText: 'positive decimal amount' }).waitFor();
    await shot('11b-spend');
  });

  it('counts the sends and the verification on the dashboard', async () => {
    // More traffic for the charts: PINs to three countries through the API, some verified.
    const messageId = (await api.messages.list(state.applicationId)).find((m) => m.emailTemplateId === undefined)!.messageId;
    const destinations = ['447400123456', '447400123457', '4915123456789', '4915123456780', '41791234568'];
    for (const [i, to] of destinations.entries()) {
      const { pinId } = await api.pins.sendSms({ applicationId: state.applicationId, messageId, to, placeholders: { brand: 'Acme' } });
      if (i % 2 === 1) continue;
      let verified = false;
      // 10 s of polling is a safety net for the delivery, which takes a few milliseconds.
      for (let tries = 0; tries < 200 && !verified; tries++) {
        const delivered = (await api.inbox.list({ to })).find((m) => m.pinId === pinId);
        const pin = delivered && /code is ([0-9]+)\./.exec(delivered.text ?? '')?.[1];
        if (pin) verified = (await api.pins.verify(pinId, pin)).verified;
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(verified, `the PIN sent to ${to} was verified (timed out after 10 s waiting for its delivery)`);
    }
    // France is blocked by the application's anti-fraud rules: refused, and counted as such.
    await assert.rejects(api.pins.sendSms({ applicationId: state.applicationId, messageId, to: '33612345678', placeholders: { brand: 'Acme' } }), /FR|countr/i);
    await nav('Dashboard');
    await page.getByTestId('total-sends').filter({ hasText: '6' }).waitFor();
    assert.deepEqual(await totals(), { sends: '6', verifications: '4' });
    await page.getByRole('figure', { name: 'Refused requests by reason' }).getByText(/^Send: /).waitFor();
    await page.getByText('United Kingdom (GB)').waitFor();
    await page.getByRole('img', { name: /PINs sent, per channel/ }).waitFor();
    const file = await shot('12-dashboard');
    // The screenshot of docs/console.md: written when missing, or refreshed on request.
    if (!fs.existsSync(DOCS_SCREENSHOT) || process.env['TWOFA_UPDATE_SCREENSHOTS'] === '1') {
      fs.copyFileSync(file, DOCS_SCREENSHOT);
    }
    assert.ok(fs.statSync(file).size > 10_000);
  });

  it('creates an API key shown once, and revokes it', async () => {
    await nav('API keys');
    await page.getByLabel('Label', { exact: true }).fill('billing service');
    await page.getByLabel(/^2fa:pin:send/).check();
    await page.getByLabel(/^2fa:pin:approve/).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByTestId('created-key').inputValue();
    assert.match(key, /^tfa_/);
    const me = await createTwofaClient({ baseUrl: server.url, apiKey: key }).account.me();
    assert.deepEqual([me.key.label, [...me.key.scopes].sort()], ['billing service', ['2fa:pin:approve', '2fa:pin:send']]);
    await shot('13-api-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Revoke billing service' }).click();
    await page.getByRole('cell', { name: /^Revoked/ }).first().waitFor();
    assert.ok(!(await page.content()).includes(key), 'the key is not shown again');
    await assert.rejects(createTwofaClient({ baseUrl: server.url, apiKey: key }).account.me(), /401/);
  });

  it('shows the routes table and explains the route of a number', async () => {
    await nav('Routes');
    const rule = page.getByRole('row', { name: /india/ });
    await rule.waitFor();
    assert.match((await rule.textContent()) ?? '', /IN.*primary → backup.*ACMEIN \(alphanumeric\).*dltEntityId 1101234567890123456/);
    await page.getByLabel('Phone number', { exact: true }).fill('+919876543210');
    await page.getByRole('button', { name: 'Explain' }).click();
    const explained = page.getByRole('status').filter({ hasText: 'matched by country IN' });
    await explained.waitFor();
    const text = (await explained.textContent()) ?? '';
    assert.match(text, /rule #0 india, matched by country IN/);
    assert.match(text, /Sender: ACMEIN \(from route\)/);
    assert.match(text, /dltTemplateId 1107123456789012345/);
    assert.deepEqual(await explained.getByRole('row').allTextContents().then((rows) => rows.slice(1).map((r) => r.replace(/\s+/g, ' ').trim())), ['1primarynot priced—', '2backupnot priced—']);
    await page.getByLabel('Phone number', { exact: true }).fill('12');
    await page.getByRole('button', { name: 'Explain' }).click();
    await page.getByText(/must be an international phone number/).first().waitFor();
    assert.equal(await page.getByText('matched by country IN').count(), 0, 'the explanation of the number before is gone');
    await shot('15-routes');
  });

  it('works at phone width and from the keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // At phone width the navigation is behind the menu button.
    const menu = page.getByRole('button', { name: 'Menu' });
    assert.equal(await page.getByRole('navigation', { name: 'Console' }).isVisible(), false);
    assert.equal(await menu.isVisible(), true);
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Inbox' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(scrollWidth <= 400, `no sideways scrolling at phone width (${scrollWidth}px)`);
    await shot('14-inbox-phone');
    await page.goto(`${server.url}/console/`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await shot('15-dashboard-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
    // The first Tab reaches the skip link, which leads to the page's content.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate<string | undefined>('document.activeElement?.textContent'), 'Skip to content');
  });

  it('shows the risk score\'s decisions on the Fraud page and puts a prefix on the Safe List with one button', async () => {
    const app = await api.applications.create({ name: 'Pumped app', configuration: { sendPinPerApplicationLimit: '100000/1d' } });
    const message = await api.messages.create(app.applicationId, { pinType: 'NUMERIC', pinLength: 6, messageText: 'Your code is {{pin}}' });
    await api.risk.update(app.applicationId, { mode: 'shadow' });
    // Sequential numbers that never verify: pumping, shadow-blocked (sent, and recorded).
    for (let i = 0; i < 30; i += 1) await api.pins.sendSms({ applicationId: app.applicationId, messageId: message.messageId, to: `4474002000${String(i).padStart(2, '0')}` });
    await nav('Fraud');
    await page.getByRole('heading', { name: 'Decisions over time' }).waitFor();
    await page.getByRole('rowheader', { name: 'sequential_numbers' }).waitFor();
    await page.getByRole('rowheader', { name: 'GB' }).waitFor();
    // What blocking the shadow blocks would have saved: 0.03 EUR each (one SMS part).
    const savings = await api.risk.savings({ applicationId: app.applicationId });
    const eur = savings.currencies.find((c) => c.currency === 'EUR');
    assert.ok(eur && eur.shadowBlocks > 0, 'the shadow blocks are priced in EUR');
    assert.equal(eur.shadowBlockedMicros, eur.shadowBlocks * 30_000);
    // The page shows the account's (any other application's blocks too).
    const shown = (await api.risk.savings()).currencies.find((c) => c.currency === 'EUR')!;
    await page.getByTestId('savings-row').filter({ hasText: `${formatMicros(shown.shadowBlockedMicros)} EUR` }).waitFor();
    await shot('15-fraud');
    await page.getByRole('button', { name: 'Put on the Safe List +44740020*' }).click();
    await page.getByRole('status').filter({ hasText: '+44740020* is on the Safe List.' }).waitFor();
    assert.equal((await api.safeList.get('+44740020*')).prefix, '+44740020');
    await page.getByRole('rowheader', { name: '+44740020*' }).waitFor();
  });

  it('signs out, forgetting the key; the key never was in an address', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await page.evaluate<number>('window.sessionStorage.length'), 0);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.deepEqual(requestedUrls.filter((url) => url.includes(server.key)), []);
    assert.deepEqual(problems, [], 'no script error and no Content-Security-Policy violation');
  });
});
