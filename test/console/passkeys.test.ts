// Passkeys end to end in Debian's Chromium, with its virtual WebAuthn authenticator (DevTools
// protocol: WebAuthn.addVirtualAuthenticator, ctap2, internal, resident keys, user verification),
// against a real `twofa serve` on SQLite and on PostgreSQL. Through Twilio's API, driven by the
// official SDK, the ceremonies run by navigator.credentials in a page of the relying party's origin;
// and through the console's Passkeys page. A tampered assertion and a page of another origin are refused.
//
// The server listens on 127.0.0.1; the pages are opened as http://localhost:<port>: browsers refuse
// an IP address as a relying party id ("This is an invalid domain"), and localhost is a secure
// context over plain http. Skips without Chromium, as test/console/console.test.ts does.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import twilio from 'twilio';
import { buildWeb, webBuildIsStale } from '../../scripts/build-web.mjs';
import { createTwofaClient, type TwofaClient } from '../../src/client/index.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import { closeBrowserAndServer, launchChromium, requireBrowser, skipWithoutBrowser } from '../support/chromium.js';
import { PROJECT_ROOT, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { rejectsWith } from '../twilio/sdk-support.js';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test', 'console', '.artifacts');
const noBrowser = skipWithoutBrowser('the passkeys browser test');

type Json = Record<string, unknown>;

/** The page's WebAuthn API, as much of it as the tests call (this file is compiled without the DOM types). */
interface PageWebAuthn {
  navigator: { credentials: { create(options: unknown): Promise<{ toJSON(): Json }>; get(options: unknown): Promise<{ toJSON(): Json }> } };
  PublicKeyCredential: { parseCreationOptionsFromJSON(json: unknown): unknown; parseRequestOptionsFromJSON(json: unknown): unknown };
}

/** navigator.credentials.create() on the page, from options as JSON, answered as JSON (what a site's script sends its server). */
function createInPage(page: Page, options: unknown): Promise<Json> {
  return page.evaluate(async (json) => {
    const w = globalThis as unknown as PageWebAuthn;
    return (await w.navigator.credentials.create({ publicKey: w.PublicKeyCredential.parseCreationOptionsFromJSON(json) })).toJSON();
  }, options);
}

function getInPage(page: Page, options: unknown): Promise<Json> {
  return page.evaluate(async (json) => {
    const w = globalThis as unknown as PageWebAuthn;
    return (await w.navigator.credentials.get({ publicKey: w.PublicKeyCredential.parseRequestOptionsFromJSON(json) })).toJSON();
  }, options);
}

/** A blank page on another port: another origin, under the same relying party id (localhost). */
async function otherOrigin(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => { res.setHeader('content-type', 'text/html'); res.end('<!doctype html><title>elsewhere</title>'); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://localhost:${port}/`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

for (const store of ['SQLite', 'PostgreSQL'] as const) {
  const skip = noBrowser || (store === 'PostgreSQL' ? await skipUnlessPostgres() : false);
  describe(`passkeys in Chromium, on ${store}`, { skip, timeout: 120_000 }, () => {
    let server: ServerProcess;
    let database: TestDatabase | undefined;
    let api: TwofaClient;
    let context: BrowserContext;
    let page: Page;
    let cdp: CDPSession;
    let authenticatorId = '';
    let userDataDir = '';
    let origin = '';
    let verify: ReturnType<ReturnType<typeof twilio>['verify']['v2']['services']>;
    const identity = 'user-0001-chromium';
    const problems: string[] = [];

    const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `passkeys-${store.toLowerCase()}-${name}.png`), fullPage: true });
    const storedCredentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;

    before(async () => {
      requireBrowser();
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      if (webBuildIsStale()) await buildWeb();
      database = store === 'PostgreSQL' ? await createTestDatabase('passkeys_browser') : undefined;
      server = await startServerProcess({ TWOFA_LOG_LEVEL: 'warn', ...(database ? { TWOFA_DATABASE_URL: database.url } : {}) });
      origin = server.url.replace('127.0.0.1', 'localhost');
      api = createTwofaClient({ baseUrl: server.url, apiKey: server.key });
      ({ context, userDataDir } = await launchChromium({ width: 1280, height: 1000 }));
      context.setDefaultTimeout(15_000);
      page = context.pages()[0] ?? await context.newPage();
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      }));
      const me = await api.account.me();
      const client = twilio(me.accountSid, server.key);
      client.verify.baseUrl = server.url;
      const service = await client.verify.v2.services.create({
        friendlyName: 'Passkeys shop', 'passkeys.relyingParty.id': 'localhost', 'passkeys.relyingParty.name': 'Shop', 'passkeys.relyingParty.origins': origin,
        'passkeys.authenticatorAttachment': 'platform', 'passkeys.discoverableCredentials': 'required', 'passkeys.userVerification': 'required',
      });
      verify = client.verify.v2.services(service.sid);
      await page.goto(`${origin}/console/`);
    });

    after(async () => {
      await closeBrowserAndServer({ context, userDataDir }, server);
      await database?.drop();
    });

    it('registers a passkey through Twilio\'s API (its Node SDK) and approves a challenge with it, Chromium running the ceremonies', async () => {
      const factor = await verify.newFactors.create({ friendly_name: 'Ann\'s laptop', identity } as never);
      assert.equal(factor.status, 'unverified');
      const options = (factor.options as { publicKey: Json }).publicKey;
      const credential = await createInPage(page, options);
      const verified = await verify.newVerifyFactors.update(credential as never);
      assert.equal(verified.status, 'verified');
      assert.equal(verified.sid, factor.sid);
      const [stored] = await storedCredentials();
      assert.equal(stored?.rpId, 'localhost');
      assert.equal(stored?.isResidentCredential, true);
      assert.equal(Buffer.from(stored!.userHandle!, 'base64').toString(), factor.entitySid, 'the user handle is the entity SID');

      // A discoverable challenge: the passkey names its user.
      const challenge = await verify.newChallenge().create({} as never);
      assert.equal(challenge.status, 'pending');
      const assertion = await getInPage(page, (challenge.options as { publicKey: Json }).publicKey);
      const approved = await verify.approveChallenge.update(assertion as never);
      assert.equal(approved.status, 'approved');
      assert.equal(approved.identity, identity);
      assert.equal(approved.factorSid, factor.sid);
      // The authenticator's counter moved, and twofa took the new value.
      assert.ok((await storedCredentials())[0]!.signCount >= 1);

      // The same assertion again: the challenge was answered once.
      await rejectsWith(verify.approveChallenge.update(assertion as never), 403, 60383);
    });

    it('refuses a tampered assertion and the ceremonies of a page of another origin', async () => {
      const challenge = await verify.newChallenge().create({ identity } as never);
      const assertion = await getInPage(page, (challenge.options as { publicKey: Json }).publicKey);
      const response = assertion['response'] as Json;
      const signature = Buffer.from(response['signature'] as string, 'base64url');
      signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 0xff, signature.length - 1);
      const tampered = await rejectsWith(verify.approveChallenge.update({ ...assertion, response: { ...response, signature: signature.toString('base64url') } } as never), 403, 60324);
      assert.match(tampered.message, /signature/);
      // The genuine answer still approves it (a refused one does not end the challenge).
      assert.equal((await verify.approveChallenge.update(assertion as never)).status, 'approved');

      const elsewhere = await otherOrigin();
      try {
        await page.goto(elsewhere.url);
        const foreignChallenge = await verify.newChallenge().create({ identity } as never);
        const foreignAssertion = await getInPage(page, (foreignChallenge.options as { publicKey: Json }).publicKey);
        const refused = await rejectsWith(verify.approveChallenge.update(foreignAssertion as never), 403, 60324);
        assert.match(refused.message, /origin/);
        const factor = await verify.newFactors.create({ friendly_name: 'Elsewhere', identity: 'user-0002-chromium' } as never);
        const foreignCredential = await createInPage(page, (factor.options as { publicKey: Json }).publicKey);
        const refusedRegistration = await rejectsWith(verify.newVerifyFactors.update(foreignCredential as never), 403, 60311);
        assert.match(refusedRegistration.message, /origin/);
      } finally {
        await elsewhere.close();
        await page.goto(`${origin}/console/`);
      }
      const refusals = (await api.audit.list({ event: 'challenge.passkey.refused' })).entries.map((e) => e.reason);
      assert.ok(refusals.some((r) => r?.endsWith(' signature')) && refusals.some((r) => r?.endsWith(' origin')), refusals.join(', '));
    });

    it('registers a passkey and approves a challenge with it on the console\'s Passkeys page', async () => {
      await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
      const app = await api.applications.create({ name: 'Console passkeys' });
      await page.goto(`${origin}/console/`);
      await page.getByLabel('API key').fill(server.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Passkeys', exact: true }).click();
      await page.getByRole('heading', { name: 'Passkeys', level: 1 }).waitFor();
      await page.getByLabel('Application').selectOption(app.applicationId);
      // The relying party defaults to this page's domain and origin.
      assert.equal(await page.getByLabel('Relying party id').inputValue(), 'localhost');
      assert.equal(await page.getByLabel('Origins').inputValue(), origin);
      await page.getByLabel('Relying party name').fill('Console test');
      await page.getByRole('button', { name: 'Save relying party' }).click();
      await page.getByText('Saved.').waitFor();

      await page.getByLabel('User identity').fill('user-0003-console');
      await page.getByLabel('Passkey name').fill('Ann\'s laptop');
      await page.getByRole('button', { name: 'Register a passkey' }).click();
      const registered = page.getByTestId('passkey-registered');
      await registered.waitFor();
      assert.match(await registered.textContent() ?? '', /user-0003-console.*YF[0-9a-f]{32}.*verified/);
      await shot('01-registered');

      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      const approved = page.getByTestId('challenge-approved');
      await approved.waitFor();
      assert.match(await approved.textContent() ?? '', /YC[0-9a-f]{32} approved for user-0003-console/);
      await shot('02-approved');

      const events = (await api.audit.list({ applicationId: app.applicationId })).entries.map((e) => e.event);
      for (const event of ['config.passkeys.update', 'factor.entity.create', 'factor.passkey.create', 'factor.passkey.verify', 'challenge.passkey.create', 'challenge.passkey.approve']) {
        assert.ok(events.includes(event), `${event} in ${events.join(', ')}`);
      }
      assert.deepEqual(problems, []);
    });
  });
}
