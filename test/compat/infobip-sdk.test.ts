// Infobip's own Node SDK (`@infobip-api/sdk`, its `service.twoFA`) pointed at a real `twofa serve`
// process: the whole flow works unchanged, quirks included (it posts to `/2fa/2/pin/?ncNeeded=undefined`
// when ncNeeded is not given, and asks for `/verifications/?msisdn=` with a trailing slash).
// The SDK never throws: every method RETURNS either the axios response or the axios error, so the
// assertions read `.status` and `.data` (or `.response` of an error).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { AuthType, Infobip } from '@infobip-api/sdk';
import { createJsonClient, deliveredPin, waitForInboxMessage, type JsonClient } from '../support/json-client.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const PIN_ID = /^[0-9A-F]{32}$/;
const PHONE = '41793026727';
const VOICE_PHONE = '41793026728';

/** What the SDK hands back: an axios response, or an axios error carrying one. */
interface SdkAnswer {
  status?: number;
  data?: any;
  isAxiosError?: boolean;
  message?: string;
  response?: { status: number; data: any; headers: Record<string, string> };
}

/** The response of a successful call; a returned error fails the test with what the server said. */
function ok(answer: SdkAnswer, what: string): { status: number; data: any } {
  if (answer.isAxiosError || answer.status === undefined) {
    assert.fail(`${what}: ${answer.message ?? 'no answer'} ${JSON.stringify(answer.response?.data)}`);
  }
  assert.equal(answer.status, 200, what);
  return { status: answer.status, data: answer.data };
}

const wrongPin = (pin: string) => `${pin.slice(0, -1)}${(Number(pin.at(-1)) + 1) % 10}`;

describe("Infobip's Node SDK (@infobip-api/sdk 0.3.2) against a real server", () => {
  let server: ServerProcess;
  let inbox: JsonClient;
  let twoFA: any;
  /** Every URL the SDK requested, as it built it (recorded by an axios interceptor). */
  const requested: string[] = [];
  let appId: string;
  let messageId: string;
  let smsPinId: string;

  before(async () => {
    server = await startServerProcess({ TWOFA_LOG_LEVEL: 'warn' });
    inbox = createJsonClient(server.url, server.key);
    // The SDK prepends https:// to a base URL without a scheme, so the scheme is spelled out.
    const infobip = new Infobip({ baseUrl: server.url, apiKey: server.key, authType: AuthType.ApiKey });
    twoFA = infobip.service.twoFA;
    twoFA.http.axios.interceptors.request.use((config: { method?: string; url?: string }) => {
      requested.push(`${(config.method ?? '').toUpperCase()} ${config.url ?? ''}`);
      return config;
    });
  });

  after(async () => {
    if (!server) return;
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('createApplication, getApplications, getApplication, updateApplication', async () => {
    const created = ok(await twoFA.createApplication({
      name: 'SDK app', enabled: true,
      configuration: { pinAttempts: 5, pinTimeToLive: '10m', verifyPinLimit: '100/1s', sendPinPerPhoneNumberLimit: '100/1d' },
    }), 'createApplication');
    assert.match(created.data.applicationId, PIN_ID);
    assert.deepEqual(created.data.configuration, {
      pinAttempts: 5, allowMultiplePinVerifications: true, pinTimeToLive: '10m', verifyPinLimit: '100/1s',
      sendPinPerApplicationLimit: '10000/1d', sendPinPerPhoneNumberLimit: '100/1d',
    });
    appId = created.data.applicationId;

    const list = ok(await twoFA.getApplications(), 'getApplications');
    assert.ok(Array.isArray(list.data));
    assert.deepEqual(list.data.find((a: { applicationId: string }) => a.applicationId === appId), created.data);
    assert.deepEqual(ok(await twoFA.getApplication(appId), 'getApplication').data, created.data);

    const updated = ok(await twoFA.updateApplication(appId, { name: 'SDK app renamed' }), 'updateApplication');
    assert.deepEqual(updated.data, { ...created.data, name: 'SDK app renamed' });
  });

  it('createMessageTemplate, getMessageTemplates, getMessageTemplate, updateMessageTemplate', async () => {
    const created = ok(await twoFA.createMessageTemplate(appId, {
      pinType: 'NUMERIC', pinLength: 4, messageText: 'Your code is {{pin}}', senderId: 'Acme', language: 'en', repeatDTMF: '1#', speechRate: 1,
    }), 'createMessageTemplate');
    assert.equal(created.data.applicationId, appId);
    assert.equal(created.data.pinPlaceholder, '{{pin}}');
    messageId = created.data.messageId;

    const list = ok(await twoFA.getMessageTemplates(appId), 'getMessageTemplates');
    assert.deepEqual(list.data.map((m: { messageId: string }) => m.messageId), [messageId]);
    assert.deepEqual(ok(await twoFA.getMessageTemplate(appId, messageId), 'getMessageTemplate').data, created.data);

    const updated = ok(await twoFA.updateMessageTemplate(appId, messageId, { pinLength: 6, messageText: 'Your code is {{pin}}', pinType: 'NUMERIC' }), 'updateMessageTemplate');
    assert.deepEqual(updated.data, { ...created.data, pinLength: 6 });
  });

  it('sendPINCodeSMS without ncNeeded (the SDK sends ?ncNeeded=undefined): number lookup counts as requested', async () => {
    const sent = ok(await twoFA.sendPINCodeSMS({ applicationId: appId, messageId, to: PHONE }), 'sendPINCodeSMS');
    assert.ok(requested.includes('POST /2fa/2/pin/?ncNeeded=undefined'), requested.join('\n'));
    assert.match(sent.data.pinId, PIN_ID);
    assert.deepEqual(sent.data, { pinId: sent.data.pinId, to: PHONE, ncStatus: 'NC_NOT_CONFIGURED', smsStatus: 'MESSAGE_SENT' });
    smsPinId = sent.data.pinId;
  });

  it('resendPINCodeSMS with no body delivers the same PIN under the same pinId', async () => {
    const resent = ok(await twoFA.resendPINCodeSMS(smsPinId), 'resendPINCodeSMS');
    // A resend has no ncNeeded parameter, so no number-lookup status either.
    assert.deepEqual(resent.data, { pinId: smsPinId, to: PHONE, smsStatus: 'MESSAGE_SENT' });
    const { messages } = await waitForInboxMessage(inbox, PHONE, smsPinId, { count: 2 });
    assert.equal(new Set(messages.map((m) => m.text)).size, 1, 'both messages carry the same PIN');
  });

  it('verifyPhoneNumber: a wrong PIN is 200 verified:false WRONG_PIN, then the right one from the inbox is verified:true', async () => {
    const pin = await deliveredPin(inbox, PHONE, smsPinId);
    const wrong = ok(await twoFA.verifyPhoneNumber(smsPinId, { pin: wrongPin(pin) }), 'verifyPhoneNumber (wrong)');
    assert.deepEqual(wrong.data, { pinId: smsPinId, msisdn: PHONE, verified: false, attemptsRemaining: 4, pinError: 'WRONG_PIN' });
    const right = ok(await twoFA.verifyPhoneNumber(smsPinId, { pin }), 'verifyPhoneNumber (right)');
    assert.deepEqual(right.data, { pinId: smsPinId, msisdn: PHONE, verified: true, attemptsRemaining: 3 });
  });

  it('sendPINCodeSMS with ncNeeded false: ?ncNeeded=false, no ncStatus', async () => {
    const sent = ok(await twoFA.sendPINCodeSMS({ applicationId: appId, messageId, to: '41793026729' }, false), 'sendPINCodeSMS(false)');
    assert.ok(requested.includes('POST /2fa/2/pin/?ncNeeded=false'), requested.join('\n'));
    assert.deepEqual(sent.data, { pinId: sent.data.pinId, to: '41793026729', smsStatus: 'MESSAGE_SENT' });
  });

  it('sendPINCodeVoice, resendPINCodeVoice (no body), verify the PIN spoken', async () => {
    const sent = ok(await twoFA.sendPINCodeVoice({ applicationId: appId, messageId, to: VOICE_PHONE }), 'sendPINCodeVoice');
    assert.match(sent.data.pinId, PIN_ID);
    assert.deepEqual(sent.data, { pinId: sent.data.pinId, to: VOICE_PHONE, callStatus: 'PENDING_ACCEPTED' });
    const resent = ok(await twoFA.resendPINCodeVoice(sent.data.pinId), 'resendPINCodeVoice');
    assert.deepEqual(resent.data, sent.data);

    const { messages } = await waitForInboxMessage(inbox, VOICE_PHONE, sent.data.pinId, { count: 2 });
    assert.deepEqual(messages.map((m: any) => m.channel), ['voice', 'voice']);
    const pin = await deliveredPin(inbox, VOICE_PHONE, sent.data.pinId);
    assert.equal(ok(await twoFA.verifyPhoneNumber(sent.data.pinId, { pin }), 'verify voice PIN').data.verified, true);
  });

  it('getVerificationStatus (the SDK adds a trailing slash: /verifications/?msisdn=...)', async () => {
    const status = ok(await twoFA.getVerificationStatus(appId, { msisdn: PHONE, verified: true }), 'getVerificationStatus');
    assert.ok(requested.includes(`GET /2fa/2/applications/${appId}/verifications/?msisdn=${PHONE}&verified=true`), requested.join('\n'));
    assert.equal(status.data.verifications.length, 1);
    const [row] = status.data.verifications;
    assert.deepEqual(Object.keys(row).sort(), ['msisdn', 'sentAt', 'verified', 'verifiedAt']);
    assert.equal(row.msisdn, PHONE);
    assert.equal(row.verified, true);

    const unverified = ok(await twoFA.getVerificationStatus(appId, { msisdn: '41793026729', verified: false }), 'getVerificationStatus (unverified)');
    assert.deepEqual(unverified.data.verifications.map((v: any) => [v.msisdn, v.verified]), [['41793026729', false]]);
  });

  it('failures come back (as returned axios errors) in Infobip\'s envelope', async () => {
    const missing = (await twoFA.getApplication('0123456789ABCDEF0123456789ABCDEF')) as SdkAnswer;
    assert.equal(missing.isAxiosError, true);
    assert.equal(missing.response?.status, 404);
    assert.equal(missing.response?.data.requestError.serviceException.messageId, 'NOT_FOUND');

    const invalid = (await twoFA.sendPINCodeSMS({ applicationId: appId, messageId, to: 'not-a-number' })) as SdkAnswer;
    assert.equal(invalid.response?.status, 400);
    assert.equal(invalid.response?.data.requestError.serviceException.messageId, 'BAD_REQUEST');
    assert.ok(invalid.response?.data.requestError.serviceException.validationErrors.to);

    const stranger = new Infobip({ baseUrl: server.url, apiKey: 'not-a-key-0123456789', authType: AuthType.ApiKey }).service.twoFA;
    const refused = (await stranger.getApplications()) as SdkAnswer;
    assert.equal(refused.response?.status, 401);
    assert.equal(refused.response?.data.requestError.serviceException.messageId, 'UNAUTHORIZED');
  });

  it('also works with the OAuth (Bearer) auth type', async () => {
    const bearer = new Infobip({ baseUrl: server.url, oauthToken: server.key, authType: AuthType.OAuth }).service.twoFA;
    const list = ok(await bearer.getApplications(), 'getApplications (Bearer)');
    assert.ok(list.data.some((a: { applicationId: string }) => a.applicationId === appId));
  });
});
