// Twilio's own credentials: HTTP Basic with the account SID and its Auth Token, through Twilio's
// official Node SDK (`twilio(accountSid, authToken)`) against a real twofa server on 127.0.0.1.
// Rotation ends the old token after TWOFA_TWILIO_AUTH_TOKEN_GRACE; wrong tokens are throttled as any
// failed authentication.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import twilio from 'twilio';
import pino from 'pino';
import { reencryptAuthTokens } from '../../src/service/twilio-webhooks.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { createHarness, deliveredPin, HARNESS_SECRET, type Harness } from '../support/harness.js';
import { freshPhone } from '../support/http-assertions.js';
import { RecordingClient, rejectsWith } from './sdk-support.js';

const pinIdOf = (verificationSid: string) => verificationSid.slice(2).toUpperCase();

async function listening(env: Record<string, string> = {}) {
  const h = await createHarness(env);
  await h.node.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(h.node.app.server.address() as AddressInfo).port}`;
  const http = new RecordingClient({ keepAlive: false });
  const sdk = (user: string, password: string) => {
    const client = twilio(user, password, { httpClient: http });
    client.verify.baseUrl = base;
    return client;
  };
  return { h, sdk };
}

async function authTokenOf(h: Harness, key?: string): Promise<{ accountSid: string; authToken: string }> {
  const answer = await h.request('GET', '/api/v1/twilio/auth-token', key === undefined ? {} : { key });
  assert.equal(answer.status, 200);
  return answer.body;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('Twilio credentials: account SID and Auth Token', () => {
  describe('with the default grace (none)', () => {
    let h: Harness;
    let sdk: (user: string, password: string) => twilio.Twilio;
    before(async () => ({ h, sdk } = await listening()));
    after(async () => { await h.close(); });

    it('twilio(accountSid, authToken) creates a service, starts a verification and checks it', async () => {
      const { accountSid, authToken } = await authTokenOf(h);
      const client = sdk(accountSid, authToken);
      const service = await client.verify.v2.services.create({ friendlyName: 'Token shop' });
      const to = `+${freshPhone()}`;
      const started = await client.verify.v2.services(service.sid).verifications.create({ to, channel: 'sms' });
      assert.equal(started.status, 'pending');
      assert.equal(started.accountSid, accountSid);
      const code = await deliveredPin(h, pinIdOf(started.sid));
      const check = await client.verify.v2.services(service.sid).verificationChecks.create({ to, code });
      assert.equal(check.status, 'approved');
      assert.equal(check.valid, true);
    });

    it('refuses the token under another account\'s SID, and another account\'s token under this SID', async () => {
      const a = await authTokenOf(h);
      const b = await authTokenOf(h, h.keys.b);
      assert.notEqual(a.authToken, b.authToken);
      await rejectsWith(sdk(b.accountSid, a.authToken).verify.v2.services.list(), 401, 20003);
      await rejectsWith(sdk(a.accountSid, b.authToken).verify.v2.services.list(), 401, 20003);
      assert.ok(Array.isArray(await sdk(b.accountSid, b.authToken).verify.v2.services.list()));
    });

    it('refuses the replaced token at once after a rotation; the new one works', async () => {
      const before = await authTokenOf(h);
      await sdk(before.accountSid, before.authToken).verify.v2.services.list();
      const rotated = await h.request('POST', '/api/v1/twilio/auth-token');
      assert.equal(rotated.status, 200);
      await rejectsWith(sdk(before.accountSid, before.authToken).verify.v2.services.list(), 401, 20003);
      assert.ok(Array.isArray(await sdk(before.accountSid, rotated.body.authToken).verify.v2.services.list()));
    });

    it('logs in with a token stored before tokens were logins, once the start has given it its digest', async () => {
      const { accountSid, authToken } = await authTokenOf(h);
      // A row as an older release wrote it: the encrypted token, no digest.
      const db = (h.node.store as KyselyStore).db;
      await db.updateTable('twilio_auth_tokens').set({ token_digest: null }).execute();
      await rejectsWith(sdk(accountSid, authToken).verify.v2.services.list(), 401, 20003);
      await reencryptAuthTokens(h.node.store, new PinKeyring(HARNESS_SECRET), pino({ level: 'silent' }));
      assert.ok(Array.isArray(await sdk(accountSid, authToken).verify.v2.services.list()));
      const stored = await db.selectFrom('twilio_auth_tokens').select(['token_ciphertext', 'token_digest']).execute();
      assert.ok(stored.every((row) => row.token_digest !== null && !row.token_ciphertext.includes(authToken) && row.token_digest !== authToken), 'only a digest and a ciphertext');
    });

    it('names the Auth Token as the actor of what it does in the audit log', async () => {
      const { accountSid, authToken } = await authTokenOf(h);
      const service = await sdk(accountSid, authToken).verify.v2.services.create({ friendlyName: 'Audited' });
      await sdk(accountSid, authToken).verify.v2.services(service.sid).verifications.create({ to: `+${freshPhone()}`, channel: 'sms' });
      const entries = (await h.request('GET', '/api/v1/audit?limit=100')).body.entries as Array<{ event: string; actor: string | null }>;
      const send = entries.find((e) => e.event === 'pin.send');
      assert.equal(send?.actor, 'twilio-auth-token');
    });
  });

  describe('with TWOFA_TWILIO_AUTH_TOKEN_GRACE=1h', () => {
    let h: Harness;
    let sdk: (user: string, password: string) => twilio.Twilio;
    before(async () => ({ h, sdk } = await listening({ TWOFA_TWILIO_AUTH_TOKEN_GRACE: '1h' })));
    after(async () => { await h.close(); });

    it('keeps the replaced token valid during the grace beside the new one, then refuses it', async () => {
      const old = await authTokenOf(h);
      const rotated = (await h.request('POST', '/api/v1/twilio/auth-token')).body.authToken as string;
      assert.notEqual(rotated, old.authToken);
      assert.ok(Array.isArray(await sdk(old.accountSid, old.authToken).verify.v2.services.list()), 'the old token within the grace');
      assert.ok(Array.isArray(await sdk(old.accountSid, rotated).verify.v2.services.list()), 'the new token');
      h.clock.advance(60 * 60_000 + 1);
      await rejectsWith(sdk(old.accountSid, old.authToken).verify.v2.services.list(), 401, 20003);
      assert.ok(Array.isArray(await sdk(old.accountSid, rotated).verify.v2.services.list()));
    });
  });

  describe('with TWOFA_AUTH_FAILURE_LIMIT=3/1m', () => {
    let h: Harness;
    before(async () => ({ h } = await listening({ TWOFA_AUTH_FAILURE_LIMIT: '3/1m' })));
    after(async () => { await h.close(); });

    it('counts wrong tokens as failed authentications: past the limit the address gets 429 (20429) before any lookup, even with the right token', async () => {
      const { accountSid, authToken } = await authTokenOf(h);
      const wrong = authToken.replace(/^./, (c) => (c === '0' ? '1' : '0'));
      for (let i = 0; i < 3; i++) {
        const refused = await h.request('GET', '/v2/Services', { headers: { authorization: basic(accountSid, wrong) } });
        assert.equal(refused.status, 401);
        assert.equal(refused.body.code, 20003);
      }
      const throttled = await h.request('GET', '/v2/Services', { headers: { authorization: basic(accountSid, authToken) } });
      assert.equal(throttled.status, 429);
      assert.equal(throttled.body.code, 20429);
      assert.ok(Number(throttled.headers['retry-after']) > 0);
    });
  });
});
